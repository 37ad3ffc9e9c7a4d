-- The hosts each user lets remote images and media load from, in every browser they
-- sign in from: one host per line.
ALTER TABLE users ADD COLUMN media_hosts TEXT NOT NULL DEFAULT '';
