// A small hand-made English opinion lexicon (word -> polarity from -4 to 4) for the sentiment sample.
// Common opinion words of reviews, support messages and social posts; not exhaustive.
const POSITIVE: Record<number, string> = {
  1: 'ok okay fine decent fair adequate acceptable reasonable clean easy simple useful helpful interested calm safe stable steady fast quick smooth reliable solid comfortable friendly polite clear fresh fun nice like likes liked pleased glad hope hopeful recommend recommended support supportive works worked working improve improved improvement',
  2: 'good great happy enjoy enjoyed enjoying satisfied thanks thank grateful glad positive pleasant better beautiful lovely charming elegant efficient effective impressive impressed cool kind generous affordable worth valuable success successful win winning won fixed resolved quality favourite favorite appreciate appreciated',
  3: 'excellent amazing awesome fantastic wonderful brilliant superb outstanding delighted delightful love loved loves loving perfect best incredible remarkable exceptional thrilled excited exciting terrific splendid flawless',
  4: 'outstandingly breathtaking phenomenal magnificent masterpiece',
};
const NEGATIVE: Record<number, string> = {
  1: 'slow confusing confused unclear boring dull meh odd weird hard difficult expensive pricey late delay delayed issue issues problem problems bug bugs glitch glitches concern concerned worry worried unsure doubt lacking missing',
  2: 'bad poor sad unhappy disappointed disappointing annoying annoyed frustrating frustrated broken fail failed fails failure wrong error errors crash crashed crashes unreliable rude useless waste wasted overpriced ugly unfortunately complain complaint complaints refund angry upset unstable buggy mediocre lousy',
  3: 'terrible awful horrible hate hated hates worst disgusting dreadful furious scam fraud nightmare pathetic unacceptable appalling atrocious',
  4: 'abysmal catastrophic',
};

function build(groups: Record<number, string>, sign: 1 | -1): [string, number][] {
  return Object.entries(groups).flatMap(([score, list]) =>
    list.split(/\s+/).map((w): [string, number] => [w, sign * Number(score)]),
  );
}

export const SENTIMENT_LEXICON: Record<string, number> = Object.fromEntries([
  ...build(POSITIVE, 1),
  ...build(NEGATIVE, -1),
]);
