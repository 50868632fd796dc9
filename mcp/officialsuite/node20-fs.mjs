import fs from 'node:fs';
import path from 'node:path';
export * from 'node:fs';
export default fs;

// globSync(pattern, {cwd}) for the patterns the suite uses: '*' and '**' path segments.
export function globSync(pattern, options = {}) {
  if (fs.globSync) return fs.globSync(pattern, options);
  const cwd = options.cwd ?? process.cwd();
  const abs = path.isAbsolute(pattern);
  const base = abs ? '/' : cwd;
  const re = new RegExp('^' + pattern.split('/').map((seg) =>
    seg === '**' ? '(?:.*/)?' : seg.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '/'
  ).join('').replace(/\(\?:\.\*\/\)\?\//g, '(?:.*/)?').replace(/\/$/, '') + '$');
  let entries;
  try {
    entries = fs.readdirSync(base, { recursive: true });
  } catch {
    return [];
  }
  return entries.map((e) => (abs ? '/' + e : e)).filter((e) => re.test(e));
}
