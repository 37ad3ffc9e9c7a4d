-- A thread renamed or moved to another project, and a project renamed, are feed rows
-- too: an inbox open in a browser shows the new names without a reload.
CREATE TRIGGER tenant_feed_thread_named AFTER UPDATE OF title, project_id ON threads
    FOR EACH ROW
    WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.project_id IS DISTINCT FROM NEW.project_id)
    EXECUTE FUNCTION tenant_feed_note('thread', 'id');
CREATE TRIGGER tenant_feed_project_named AFTER UPDATE OF name ON projects
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION tenant_feed_note('project', 'id');
