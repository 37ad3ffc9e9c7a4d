-- A thread renamed or moved to another project, and a project renamed, are feed rows
-- too: an inbox open in a browser shows the new names without a reload.
CREATE TRIGGER tenant_feed_thread_named AFTER UPDATE OF title, project_id ON threads
WHEN old.title IS NOT new.title OR old.project_id IS NOT new.project_id BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'thread', new.id);
END;
CREATE TRIGGER tenant_feed_project_named AFTER UPDATE OF name ON projects
WHEN old.name IS NOT new.name BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'project', new.id);
END;
