// A sentence-encoder worker that takes every batch and never answers: the model hanging (test only).
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => {});
