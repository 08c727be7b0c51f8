// A small, realistic catalogue for the discovery tests (written for the tests, not taken from the dev set).
import type { ProviderSpec } from './helpers.js';

export const SMALL_CATALOGUE: ProviderSpec[] = [
  {
    id: 'skycast',
    name: 'SkyCast',
    description: 'Meteorological data for apps.',
    category: 'data_intelligence',
    tags: ['weather'],
    endpoints: [
      {
        slug: 'conditions',
        method: 'GET',
        description: 'Current weather conditions for a city: temperature, humidity and wind speed.',
        tags: ['weather', 'temperature'],
        price: '0.0005',
      },
      {
        slug: 'outlook',
        method: 'GET',
        description: 'Ten-day weather forecast with daily rain probability.',
        tags: ['weather', 'forecast'],
        price: '0.001',
      },
    ],
  },
  {
    id: 'lingua',
    name: 'Lingua',
    description: 'Machine translation between 80 languages.',
    category: 'ai_ml',
    tags: ['translation', 'language'],
    endpoints: [
      {
        slug: 'translate',
        description:
          'Translate text from one language into another, with automatic source language detection.',
        tags: ['translation', 'language'],
        price: '0.002',
      },
    ],
  },
  {
    id: 'courier',
    name: 'Courier',
    description: 'Transactional messaging.',
    category: 'communication',
    tags: ['email'],
    endpoints: [
      {
        slug: 'send-email',
        description: 'Send a transactional email message to a recipient address, with attachments.',
        tags: ['email', 'messaging'],
        price: '0.0008',
      },
      {
        slug: 'send-sms',
        description: 'Send a text message (SMS) to a mobile phone number.',
        tags: ['sms', 'messaging', 'phone'],
        price: '0.006',
      },
    ],
  },
  {
    id: 'chainscan',
    name: 'ChainScan',
    description: 'Blockchain account data.',
    category: 'blockchain',
    tags: ['ethereum'],
    endpoints: [
      {
        slug: 'balance',
        method: 'GET',
        description: 'Token balance of a wallet address on Ethereum.',
        tags: ['wallet', 'balance', 'ethereum'],
        price: '0.0003',
      },
    ],
  },
  {
    id: 'pixelgen',
    name: 'PixelGen',
    description: 'Generative imaging.',
    category: 'ai_ml',
    tags: ['images'],
    endpoints: [
      {
        slug: 'generate',
        description: 'Generate an image from a text prompt, in several artistic styles.',
        tags: ['image', 'generation'],
        price: '0.02',
      },
    ],
  },
  {
    id: 'toolbox',
    name: 'Toolbox',
    description: 'Everyday developer utilities.',
    category: 'utility',
    tags: ['tools'],
    endpoints: [
      {
        slug: 'qr',
        description: 'Create a QR code PNG for a URL or any text.',
        tags: ['qr', 'barcode'],
        price: '0.0001',
      },
      {
        slug: 'uuid',
        method: 'GET',
        description: 'Generate random UUID v4 identifiers.',
        tags: ['uuid', 'identifier'],
        price: '0.0001',
      },
    ],
  },
];
