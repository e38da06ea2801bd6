-- Forge credentials sealed in the v1 format (not bound to their project) as they were
-- when this migration ran. Only these exact values are re-sealed as v2 for their project
-- (ProjectRepository.upgradeLegacyCredentials); a v1 value written into a row later —
-- say, another project's, replayed from a backup — is refused instead of adopted.
create table legacy_forge_credentials (
  project_id text primary key,
  sealed text not null
);
insert into legacy_forge_credentials (project_id, sealed)
  select id, forge_credentials from projects where forge_credentials like 'v1.%';
