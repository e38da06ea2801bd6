/**
 * The model a job uses when neither it nor its project names one (DOCWRIGHT_MODEL's
 * default), and the one error messages suggest. Anthropic's current Sonnet: the balance of
 * speed, quality and price a docs edit needs (src/config/model-prices.json cites it).
 */
export const DEFAULT_MODEL = 'anthropic:claude-sonnet-5-5';
