-- Cache writes among the input tokens, beside the cache reads of migration 017: Anthropic
-- bills a prompt-cache write above the input price, so cost and usage reports show both.
-- Usage recorded before this migration counted its writes as plain input: 0 here.
alter table job_turns add column cache_write_tokens bigint not null default 0;
alter table jobs add column cache_write_tokens bigint not null default 0;
alter table project_usage_months add column cache_write_tokens bigint not null default 0;
