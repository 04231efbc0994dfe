/** The payloads twnb's Python tests write (tests/render/test_view_fixtures.py), by name. */

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { IRoundPayload } from '../src/payload';

const FOLDER = join(__dirname, 'fixtures');

export const FIXTURE_NAMES = readdirSync(FOLDER)
  .filter(name => name.endsWith('.json'))
  .map(name => name.slice(0, -'.json'.length))
  .sort();

export function fixture(name: string): IRoundPayload {
  return JSON.parse(readFileSync(join(FOLDER, `${name}.json`), 'utf-8')) as IRoundPayload;
}

/** The whole view twnb reads from the fixture `name` (tests/render/test_view_fixtures.py writes it). */
export function wholeView(name: string): unknown {
  return JSON.parse(readFileSync(join(__dirname, 'views', `${name}.json`), 'utf-8'));
}
