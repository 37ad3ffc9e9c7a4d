-- One project per name in a tenant, held by the database so two creations or renames at
-- once cannot both take a name. A name already held twice keeps its oldest project; the
-- others get their number added, so nothing is lost.
UPDATE projects SET name = name || ' (' || seq || ')'
WHERE seq NOT IN (SELECT MIN(seq) FROM projects GROUP BY tenant_id, name);
CREATE UNIQUE INDEX projects_by_name ON projects (tenant_id, name);
