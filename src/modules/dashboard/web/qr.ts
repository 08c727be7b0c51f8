// Draws a QR code on a canvas from qrcode-generator's module matrix (no HTML strings, nothing inline).
import qrcode from 'qrcode-generator';
import { h } from './dom.js';

export function qrCanvas(text: string, label: string): HTMLCanvasElement {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const modules = qr.getModuleCount();
  const scale = 5;
  const margin = 4;
  const size = (modules + margin * 2) * scale;
  const canvas = h('canvas', { width: size, height: size, role: 'img', 'aria-label': label, class: 'qr' });
  const ctx = canvas.getContext('2d');
  if (!ctx) return canvas;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, size, size);
  ctx.fillStyle = '#000';
  for (let row = 0; row < modules; row++) {
    for (let col = 0; col < modules; col++) {
      if (qr.isDark(row, col)) ctx.fillRect((col + margin) * scale, (row + margin) * scale, scale, scale);
    }
  }
  return canvas;
}
