/**
 * A tokenizer-free token estimate for model families whose vocabulary we do not ship (Llama,
 * Qwen, Mistral, DeepSeek, Gemma, Phi...). It mimics how BPE pre-tokenizers split text: words,
 * digit groups, punctuation runs and whitespace runs each cost about one token, long words a little
 * more, CJK about one token per character. Tuned against o200k/cl100k on this repo's prose and
 * TypeScript; `Calibration` corrects it per model from what the server reports.
 */

/** A word up to this many letters is one token; BPE vocabularies hold most common words whole. */
const WHOLE_WORD = 6
/** Letters past `WHOLE_WORD` cost one token per this many. */
const LETTERS_PER_EXTRA_TOKEN = 3
/** Digits are split into groups of up to three by the GPT-4-era pre-tokenizers. */
const DIGITS_PER_TOKEN = 3
/** A punctuation run's first character is a token; later ones often merge (`();`, `=>`). */
const PUNCT_EXTRA = 0.4
/** Han, kana and Hangul: about one token per character across the families. */
const CJK_PER_CHAR = 1
/** Other non-ASCII characters (accented Latin, Cyrillic, Greek, Arabic...): two or three per token. */
const OTHER_PER_CHAR = 0.45
/** Characters outside the BMP (mostly emoji) take several UTF-8 bytes and so several tokens. */
const ASTRAL_PER_CHAR = 1.5
/** Whitespace runs past this length (long indentation, blank areas) cost another token. */
const WHITESPACE_PER_TOKEN = 16

/** The character classes runs are made of (plain numbers: this loop is the hot path). */
const NONE = 0
const WORD = 1
const DIGITS = 2
const PUNCT = 3
const SPACE = 4
const OTHER = 5
type Run = typeof NONE | typeof WORD | typeof DIGITS | typeof PUNCT | typeof SPACE | typeof OTHER

/** The estimated token count of `text`: an integer, 0 only for the empty string. */
export function estimateTokens(text: string): number {
  const length = text.length
  if (length === 0) return 0
  let tokens = 0
  let run: Run = NONE
  let previous: Run = NONE
  let runLength = 0
  // Within a word: the letters of the current camelCase part, and whether the last was lower case.
  let partLength = 0
  let wasLower = false
  // Within a whitespace run.
  let newlines = 0
  let endsInSpace = false

  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    let next: Run
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) next = WORD
    else if (code === 32 || code === 10 || code === 9 || code === 13) next = SPACE
    else if (code >= 48 && code <= 57) next = DIGITS
    else if (code < 128) next = PUNCT
    else next = OTHER

    if (next !== run || next === OTHER) {
      if (run === WORD) tokens += wordCost(partLength)
      else if (run !== NONE)
        tokens += runCost(run, runLength, previous, next, newlines, endsInSpace)
      previous = run
      run = next
      runLength = 0
      partLength = 0
      newlines = 0
    }
    runLength++

    if (next === WORD) {
      const isLower = code >= 97
      if (!isLower && wasLower && partLength > 0) {
        // camelCase boundary: `deriveMessages` is `derive` + `Messages`.
        tokens += wordCost(partLength)
        partLength = 0
      }
      partLength++
      wasLower = isLower
    } else if (next === SPACE) {
      endsInSpace = code === 32 || code === 9
      if (code === 10) newlines++
    } else if (next === OTHER) {
      if (isCjk(code)) tokens += CJK_PER_CHAR
      else if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
        tokens += ASTRAL_PER_CHAR
        i++
      } else tokens += OTHER_PER_CHAR
    }
  }
  if (run === WORD) tokens += wordCost(partLength)
  else tokens += runCost(run, runLength, previous, NONE, newlines, endsInSpace)
  return Math.max(1, Math.round(tokens))
}

/** The cost of a digit, punctuation or whitespace run, given the runs around it. */
function runCost(
  run: Run,
  length: number,
  previous: Run,
  next: Run,
  newlines: number,
  endsInSpace: boolean,
): number {
  if (run === DIGITS) return Math.ceil(length / DIGITS_PER_TOKEN)
  if (run === PUNCT) {
    // One leading symbol joins the next word (`.data`, `(event`).
    const own = next === WORD ? length - 1 : length
    return own > 0 ? 1 + (own - 1) * PUNCT_EXTRA : 0
  }
  if (run === SPACE) {
    // A lone space joins the next word or symbol (` the`, ` {`), newlines join the symbols before
    // them (`{\n`); what is left of a run is a token.
    const own =
      length -
      (previous === PUNCT ? newlines : 0) -
      (endsInSpace && (next === WORD || next === PUNCT) ? 1 : 0)
    return own > 0 ? 1 + Math.floor(length / WHITESPACE_PER_TOKEN) : 0
  }
  // NONE and OTHER: other characters are costed one by one as they are read.
  return 0
}

function wordCost(letters: number): number {
  return letters <= WHOLE_WORD ? 1 : 1 + (letters - WHOLE_WORD) / LETTERS_PER_EXTRA_TOKEN
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3000 && code <= 0x30ff) || // CJK punctuation, hiragana, katakana
    (code >= 0x3400 && code <= 0x4dbf) || // Han extension A
    (code >= 0x4e00 && code <= 0x9fff) || // Han
    (code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // Han compatibility
    (code >= 0xff00 && code <= 0xffef) // full-width forms
  )
}
