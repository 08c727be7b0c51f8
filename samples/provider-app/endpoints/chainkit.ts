// Sample Chain Kit (blockchain): EIP-55 address checksums and keccak256 hashing, computed with viem.
import { getAddress, isAddress, isHex, keccak256, stringToHex } from 'viem';
import { price, type SampleEndpoint, SampleInputError, type SampleProvider } from '../types.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export function checkAddress(address: string) {
  const text = address.trim();
  if (!isAddress(text, { strict: false })) {
    return {
      address: text,
      valid: false,
      checksum_address: null,
      is_checksummed: false,
      is_zero_address: false,
    };
  }
  const checksummed = getAddress(text);
  return {
    address: text,
    valid: true,
    checksum_address: checksummed,
    // Mixed case that is not the EIP-55 form is a typo signal, not just a style difference.
    is_checksummed: text === checksummed,
    is_zero_address: checksummed === ZERO_ADDRESS,
  };
}

const checksum: SampleEndpoint = {
  definition: {
    slug: 'checksum-address',
    method: 'GET',
    description:
      'Validate an Ethereum / EVM wallet or contract address and return its EIP-55 mixed-case checksum form; tells whether the given casing was a correct checksum (catches typos) and whether it is the zero address.',
    tags: ['ethereum', 'evm', 'address', 'checksum', 'eip-55', 'wallet', 'validation'],
    parameters: {
      address: {
        type: 'string',
        required: true,
        description: '0x-prefixed 20-byte hex address',
        maxLength: 100,
      },
    },
    response_schema: {
      address: { type: 'string' },
      valid: { type: 'boolean' },
      checksum_address: { type: 'string' },
      is_checksummed: { type: 'boolean' },
      is_zero_address: { type: 'boolean' },
    },
    pricing: price('0.001'),
  },
  handle: ({ address }) => checkAddress(String(address)),
};

export function keccak(data: string, encoding: string) {
  if (encoding === 'hex' && !isHex(data, { strict: true })) {
    throw new SampleInputError('data must be 0x-prefixed hex when encoding is hex');
  }
  const hash = keccak256(encoding === 'hex' ? (data as `0x${string}`) : stringToHex(data));
  return { hash, selector: hash.slice(0, 10) };
}

const keccakEndpoint: SampleEndpoint = {
  definition: {
    slug: 'keccak256',
    method: 'POST',
    description:
      'Keccak-256 hash (the Ethereum / Solidity hash function) of UTF-8 text or hex bytes; also returns the 4-byte function selector, e.g. for "transfer(address,uint256)" or event topics.',
    tags: ['ethereum', 'keccak256', 'hash', 'solidity', 'function-selector', 'evm'],
    parameters: {
      data: { type: 'string', required: true, description: 'Text, or 0x-hex bytes', maxLength: 100000 },
      encoding: {
        type: 'string',
        required: false,
        description: 'How to read data',
        enum: ['utf8', 'hex'],
        default: 'utf8',
      },
    },
    response_schema: {
      hash: { type: 'string', description: '0x-prefixed 32-byte hash' },
      selector: { type: 'string', description: 'First 4 bytes of the hash' },
    },
    pricing: price('0.001'),
  },
  handle: ({ data, encoding }) => keccak(String(data), String(encoding)),
};

export const chainkit: SampleProvider = {
  definition: {
    provider_id: 'sample-chainkit',
    name: 'Sample Chain Kit',
    description: 'Offline Ethereum helpers: address validation with EIP-55 checksums and keccak256 hashing.',
    category: 'blockchain',
    tags: ['ethereum', 'evm', 'web3', 'offline'],
  },
  endpoints: [checksum, keccakEndpoint],
};
