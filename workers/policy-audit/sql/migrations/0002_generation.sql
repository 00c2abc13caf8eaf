-- How each answer's text was produced (issue 16): the generator, why its text was not used
-- (LLM timeout, unavailable after the retry budget, circuit open: the extractive generator
-- answered), the judge reason codes of rejected drafts, and the LLM's requests and tokens.
-- Added at the end of the table: rows written before keep their values and read the defaults.
ALTER TABLE {db}.turns ADD COLUMN generator String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN generation_fallback String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN rejected_drafts Array(String);
ALTER TABLE {db}.turns ADD COLUMN llm_calls UInt32 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN completion_tokens UInt32 DEFAULT 0;
