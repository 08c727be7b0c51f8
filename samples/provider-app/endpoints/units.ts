// Unit tables for convert-units: each unit's size in its dimension's base unit (temperature is affine).
import { SampleInputError } from '../types.js';

const FACTORS: Record<string, Record<string, number>> = {
  length: {
    m: 1,
    km: 1000,
    cm: 0.01,
    mm: 0.001,
    um: 1e-6,
    mi: 1609.344,
    yd: 0.9144,
    ft: 0.3048,
    in: 0.0254,
    nmi: 1852,
  },
  mass: { kg: 1, g: 0.001, mg: 1e-6, t: 1000, lb: 0.45359237, oz: 0.028349523125, st: 6.35029318 },
  volume: {
    l: 1,
    ml: 0.001,
    m3: 1000,
    gal: 3.785411784,
    qt: 0.946352946,
    pt: 0.473176473,
    cup: 0.2365882365,
    floz: 0.0295735295625,
    'imp-gal': 4.54609,
  },
  area: { m2: 1, km2: 1e6, cm2: 1e-4, ha: 10000, acre: 4046.8564224, ft2: 0.09290304, mi2: 2589988.110336 },
  speed: { 'm/s': 1, 'km/h': 1 / 3.6, mph: 0.44704, kn: 1852 / 3600, 'ft/s': 0.3048 },
  time: { s: 1, ms: 0.001, min: 60, h: 3600, d: 86400, wk: 604800 },
  data: {
    bit: 0.125,
    b: 1,
    kb: 1e3,
    mb: 1e6,
    gb: 1e9,
    tb: 1e12,
    kib: 1024,
    mib: 1024 ** 2,
    gib: 1024 ** 3,
    tib: 1024 ** 4,
  },
};

/** Temperatures to and from kelvin. */
const TEMPERATURE: Record<string, { toK(v: number): number; fromK(k: number): number }> = {
  k: { toK: (v) => v, fromK: (k) => k },
  c: { toK: (v) => v + 273.15, fromK: (k) => k - 273.15 },
  f: { toK: (v) => ((v - 32) * 5) / 9 + 273.15, fromK: (k) => ((k - 273.15) * 9) / 5 + 32 },
};

const ALIASES: Record<string, string> = {
  meter: 'm',
  meters: 'm',
  metre: 'm',
  metres: 'm',
  kilometer: 'km',
  kilometers: 'km',
  kilometre: 'km',
  kilometres: 'km',
  mile: 'mi',
  miles: 'mi',
  foot: 'ft',
  feet: 'ft',
  inch: 'in',
  inches: 'in',
  yard: 'yd',
  yards: 'yd',
  kilogram: 'kg',
  kilograms: 'kg',
  gram: 'g',
  grams: 'g',
  pound: 'lb',
  pounds: 'lb',
  lbs: 'lb',
  ounce: 'oz',
  ounces: 'oz',
  liter: 'l',
  liters: 'l',
  litre: 'l',
  litres: 'l',
  gallon: 'gal',
  gallons: 'gal',
  celsius: 'c',
  fahrenheit: 'f',
  kelvin: 'k',
  kph: 'km/h',
  knots: 'kn',
  second: 's',
  seconds: 's',
  minute: 'min',
  minutes: 'min',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
  byte: 'b',
  bytes: 'b',
};

export const UNIT_NAMES = [...Object.values(FACTORS).flatMap((units) => Object.keys(units)), 'c', 'f', 'k'];

function normalise(unit: string): string {
  const u = unit.trim().toLowerCase().replace(/°/g, '');
  return ALIASES[u] ?? u;
}

/** Rounds away binary noise (0.30000000000000004) while keeping 12 significant digits. */
const tidy = (n: number) => Number(n.toPrecision(12));

export function convertUnits(value: number, fromUnit: string, toUnit: string) {
  const from = normalise(fromUnit);
  const to = normalise(toUnit);
  const fromT = TEMPERATURE[from];
  const toT = TEMPERATURE[to];
  if (fromT || toT) {
    if (!fromT || !toT) throw new SampleInputError(`cannot convert ${fromUnit} to ${toUnit}`);
    return { value, from, to, result: tidy(toT.fromK(fromT.toK(value))), dimension: 'temperature' };
  }
  for (const [dimension, units] of Object.entries(FACTORS)) {
    const a = units[from];
    const b = units[to];
    if (a !== undefined && b !== undefined)
      return { value, from, to, result: tidy((value * a) / b), dimension };
  }
  const known = (u: string) => Object.values(FACTORS).some((units) => u in units);
  if (!known(from)) throw new SampleInputError(`unknown unit "${fromUnit}"`);
  if (!known(to)) throw new SampleInputError(`unknown unit "${toUnit}"`);
  throw new SampleInputError(`cannot convert ${fromUnit} to ${toUnit}: different dimensions`);
}
