/**
 * The longest run of characters that every match of a simple regular expression must contain,
 * lower-cased; null when the pattern has no such run of at least `minimum` characters (for
 * example a top-level alternation). It feeds a prefilter, so it must never claim a run that a
 * match could lack: anything it does not understand ends the current run.
 */
export function requiredLiteral(source: string, minimum = 3): string | null {
  if (hasTopLevelAlternation(source)) return null;
  let best = '';
  let run = '';
  const endRun = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  let index = 0;
  while (index < source.length) {
    const atom = readAtom(source, index);
    index = atom.end;
    const quantifier = readQuantifier(source, index);
    index = quantifier.end;
    if (atom.literal === null) {
      endRun();
      continue;
    }
    if (quantifier.minimum === 0) {
      endRun();
      continue;
    }
    run += atom.literal;
    // A repeated character is required once; what follows it is no longer adjacent.
    if (quantifier.repeats) endRun();
  }
  endRun();
  return best.length >= minimum ? best : null;
}

interface Atom {
  /** The lower-cased character this atom always matches, or null when it is not one fixed character. */
  literal: string | null;
  end: number;
}

function readAtom(source: string, start: number): Atom {
  const character = source[start]!;
  if (character === '\\') {
    const escaped = source[start + 1];
    if (escaped !== undefined && /[^A-Za-z0-9]/.test(escaped)) return { literal: escaped.toLowerCase(), end: start + 2 };
    return { literal: null, end: start + 2 };
  }
  if (character === '[') {
    const caseClass = /^\[([A-Za-z])([A-Za-z])\]/.exec(source.slice(start, start + 4));
    if (caseClass !== null && caseClass[1]!.toLowerCase() === caseClass[2]!.toLowerCase()) {
      return { literal: caseClass[1]!.toLowerCase(), end: start + 4 };
    }
    return { literal: null, end: skipClass(source, start) };
  }
  if (character === '(') return { literal: null, end: skipGroup(source, start) };
  if ('^$.|?*+{}()'.includes(character)) return { literal: null, end: start + 1 };
  return { literal: character.toLowerCase(), end: start + 1 };
}

function readQuantifier(source: string, start: number): { minimum: number; repeats: boolean; end: number } {
  const character = source[start];
  let result = { minimum: 1, repeats: false, end: start };
  if (character === '?') result = { minimum: 0, repeats: false, end: start + 1 };
  else if (character === '*') result = { minimum: 0, repeats: true, end: start + 1 };
  else if (character === '+') result = { minimum: 1, repeats: true, end: start + 1 };
  else if (character === '{') {
    const braces = /^\{(\d*)(,?)(\d*)\}/.exec(source.slice(start));
    if (braces !== null) {
      const minimum = Number(braces[1] || '0');
      const repeats = braces[2] === ',' || Number(braces[3] || braces[1] || '1') > 1;
      result = { minimum, repeats, end: start + braces[0].length };
    }
  }
  if (result.end !== start && source[result.end] === '?') result.end++; // lazy variant
  return result;
}

function skipClass(source: string, start: number): number {
  let index = start + 1;
  if (source[index] === ']') index++;
  while (index < source.length && source[index] !== ']') index += source[index] === '\\' ? 2 : 1;
  return index + 1;
}

function skipGroup(source: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < source.length) {
    const character = source[index];
    if (character === '\\') index += 2;
    else if (character === '[') index = skipClass(source, index);
    else {
      if (character === '(') depth++;
      else if (character === ')') depth--;
      index++;
      if (depth === 0) return index;
    }
  }
  return index;
}

function hasTopLevelAlternation(source: string): boolean {
  let index = 0;
  while (index < source.length) {
    const character = source[index];
    if (character === '|') return true;
    if (character === '\\') index += 2;
    else if (character === '[') index = skipClass(source, index);
    else if (character === '(') index = skipGroup(source, index);
    else index++;
  }
  return false;
}
