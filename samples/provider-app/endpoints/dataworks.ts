// Sample Data Works (data_intelligence): JSON <-> CSV conversion (RFC 4180 quoting).
import { price, type SampleEndpoint, SampleInputError, type SampleProvider } from '../types.js';

const DELIMITERS = [',', ';', '\t', '|'];

function csvCell(value: unknown, delimiter: string): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function jsonToCsv(rows: unknown[], columns: string[] | undefined, delimiter: string) {
  const records = rows.map((row, i) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      throw new SampleInputError(`rows[${i}] must be an object`);
    }
    return row as Record<string, unknown>;
  });
  // Columns in first-seen order unless given.
  const header = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  const lines = [header, ...records.map((r) => header.map((c) => r[c]))].map((cells) =>
    cells.map((cell) => csvCell(cell, delimiter)).join(delimiter),
  );
  return { csv: `${lines.join('\r\n')}\r\n`, columns: header, row_count: records.length };
}

/** RFC 4180 parser: quoted fields may hold delimiters, quotes ("") and line breaks. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = '';
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) endField();
    else if (ch === '\n' || ch === '\r') {
      endField();
      rows.push(row);
      row = [];
      if (ch === '\r' && text[i + 1] === '\n') i++;
    } else field += ch;
    i++;
  }
  if (quoted) throw new SampleInputError('csv has an unterminated quoted field');
  if (field !== '' || row.length) {
    endField();
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

function inferValue(cell: string): unknown {
  if (cell === '') return null;
  if (cell === 'true' || cell === 'false') return cell === 'true';
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(cell) && Number.isFinite(Number(cell)))
    return Number(cell);
  return cell;
}

export function csvToJson(csv: string, delimiter: string, header: boolean, infer: boolean) {
  const table = parseCsv(csv, delimiter);
  const width = Math.max(0, ...table.map((r) => r.length));
  const columns = header
    ? (table[0] ?? []).map((c, i) => c.trim() || `column_${i + 1}`)
    : Array.from({ length: width }, (_, i) => `column_${i + 1}`);
  const body = header ? table.slice(1) : table;
  const rows = body.map((cells) =>
    Object.fromEntries(columns.map((c, i) => [c, infer ? inferValue(cells[i] ?? '') : (cells[i] ?? '')])),
  );
  return { columns, rows, row_count: rows.length };
}

const delimiterParameter = {
  type: 'string' as const,
  required: false,
  description: 'Field delimiter',
  enum: DELIMITERS,
  default: ',',
};

const toCsv: SampleEndpoint = {
  definition: {
    slug: 'json-to-csv',
    method: 'POST',
    description:
      'Convert JSON records (an array of objects) into a CSV table for spreadsheets such as Excel or Google Sheets, with proper quoting; nested values become JSON text.',
    tags: ['csv', 'json', 'conversion', 'spreadsheet', 'export', 'tabular-data'],
    parameters: {
      rows: {
        type: 'array',
        required: true,
        description: 'Records to convert',
        items: { type: 'object' },
        maxItems: 10000,
      },
      columns: {
        type: 'array',
        required: false,
        description: 'Column order (default: keys in first-seen order)',
        items: { type: 'string' },
      },
      delimiter: delimiterParameter,
    },
    response_schema: {
      csv: { type: 'string' },
      columns: { type: 'array', items: { type: 'string' } },
      row_count: { type: 'integer' },
    },
    pricing: price('0.002'),
  },
  handle: ({ rows, columns, delimiter }) =>
    jsonToCsv(rows as unknown[], columns as string[] | undefined, String(delimiter)),
};

const fromCsv: SampleEndpoint = {
  definition: {
    slug: 'csv-to-json',
    method: 'POST',
    description:
      'Parse CSV text, such as a spreadsheet export from Excel or Google Sheets (comma, semicolon, tab or pipe separated, RFC 4180 quoting), into JSON records keyed by the header row, inferring numbers, booleans and empty cells.',
    tags: ['csv', 'json', 'parser', 'conversion', 'import', 'tabular-data'],
    parameters: {
      csv: { type: 'string', required: true, description: 'CSV text', maxLength: 500000 },
      delimiter: delimiterParameter,
      header: {
        type: 'boolean',
        required: false,
        description: 'First row holds column names',
        default: true,
      },
      infer_types: {
        type: 'boolean',
        required: false,
        description: 'Turn numeric, boolean and empty cells into numbers, booleans and null',
        default: true,
      },
    },
    response_schema: {
      columns: { type: 'array', items: { type: 'string' } },
      rows: { type: 'array', items: { type: 'object' } },
      row_count: { type: 'integer' },
    },
    pricing: price('0.002'),
  },
  handle: ({ csv, delimiter, header, infer_types }) =>
    csvToJson(String(csv), String(delimiter), header === true, infer_types === true),
};

export const dataworks: SampleProvider = {
  definition: {
    provider_id: 'sample-dataworks',
    name: 'Sample Data Works',
    description: 'Tabular data conversion between JSON records and CSV tables, computed offline.',
    category: 'data_intelligence',
    tags: ['data', 'csv', 'json', 'offline'],
  },
  endpoints: [toCsv, fromCsv],
};
