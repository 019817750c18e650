-- The run store's schema version 2, frozen: version 1 (schema-v1.sql) followed by migration 2 as it shipped,
-- kept apart from `StoreSchema.swift` so the migration test to version 3 starts from what a Pipe at version 2
-- leaves on disk. Never edit.
PRAGMA application_id = 1346981957;
PRAGMA user_version = 2;

CREATE TABLE runs (
    id TEXT PRIMARY KEY NOT NULL,
    pipeline TEXT NOT NULL,
    pipeline_file TEXT NOT NULL,
    status TEXT NOT NULL,
    record_schema_version INTEGER NOT NULL,
    request TEXT NOT NULL CHECK (json_valid(request)),
    requested_by TEXT NOT NULL,
    trigger_kind TEXT NOT NULL,
    commit_sha TEXT,
    resolved_ref TEXT,
    host_name TEXT,
    host TEXT CHECK (host IS NULL OR json_valid(host)),
    xcode TEXT,
    simulator TEXT CHECK (simulator IS NULL OR json_valid(simulator)),
    remote_run_folder TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    duration_seconds REAL,
    exit_code INTEGER,
    problem TEXT,
    updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX runs_by_start ON runs (started_at);
CREATE INDEX runs_by_pipeline ON runs (pipeline, started_at);

CREATE TABLE layers (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    plugin TEXT NOT NULL,
    gate TEXT NOT NULL,
    needs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(needs)),
    outcome TEXT,
    evidence TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(evidence)),
    started_at TEXT,
    finished_at TEXT,
    UNIQUE (run_id, name)
) STRICT;

CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    layer_id INTEGER NOT NULL REFERENCES layers (id) ON DELETE CASCADE,
    number INTEGER NOT NULL CHECK (number >= 1),
    outcome TEXT,
    evidence TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(evidence)),
    exit TEXT,
    simulator_udid TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    duration_seconds REAL,
    facts TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(facts)),
    UNIQUE (layer_id, number)
) STRICT;

CREATE TABLE test_results (
    id INTEGER PRIMARY KEY,
    attempt_id INTEGER NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
    identifier TEXT NOT NULL,
    status TEXT NOT NULL,
    duration_seconds REAL,
    failure_message TEXT,
    failure_location TEXT,
    UNIQUE (attempt_id, identifier)
) STRICT;
CREATE INDEX test_results_by_identifier ON test_results (identifier);

CREATE TABLE artifacts (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    attempt_id INTEGER REFERENCES attempts (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    bytes INTEGER CHECK (bytes IS NULL OR bytes >= 0),
    sha256 TEXT,
    UNIQUE (run_id, path)
) STRICT;
CREATE INDEX artifacts_by_attempt ON artifacts (attempt_id);

ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN owner_start TEXT;
ALTER TABLE runs ADD COLUMN cancel_requested_at TEXT;
ALTER TABLE runs ADD COLUMN cancel_requested_by TEXT;
ALTER TABLE runs ADD COLUMN cancel_reason TEXT;
ALTER TABLE runs ADD COLUMN interrupted_at TEXT;
ALTER TABLE runs ADD COLUMN remote_cleaned_at TEXT;
CREATE INDEX runs_in_progress ON runs (status) WHERE status IN ('queued', 'running');
CREATE INDEX runs_by_commit ON runs (pipeline, commit_sha);

CREATE TABLE signoffs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    layer_id INTEGER NOT NULL REFERENCES layers (id) ON DELETE CASCADE,
    decision TEXT NOT NULL,
    signed_by TEXT NOT NULL,
    note TEXT,
    at TEXT NOT NULL
) STRICT;
CREATE INDEX signoffs_by_run ON signoffs (run_id, id);
CREATE INDEX signoffs_by_layer ON signoffs (layer_id);
CREATE TRIGGER signoffs_are_append_only BEFORE UPDATE ON signoffs
BEGIN SELECT RAISE(ABORT, 'sign-offs are append-only: append a new one instead'); END;
CREATE TRIGGER signoffs_go_only_with_their_run BEFORE DELETE ON signoffs
WHEN EXISTS (SELECT 1 FROM runs WHERE id = OLD.run_id)
BEGIN SELECT RAISE(ABORT, 'sign-offs are append-only: they are removed only with their run'); END;

CREATE TABLE events (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    layer TEXT,
    type TEXT NOT NULL,
    payload TEXT NOT NULL CHECK (json_valid(payload)),
    at TEXT NOT NULL
) STRICT;
CREATE INDEX events_by_run ON events (run_id, sequence);
CREATE TRIGGER events_are_append_only BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_go_only_with_their_run BEFORE DELETE ON events
WHEN EXISTS (SELECT 1 FROM runs WHERE id = OLD.run_id)
BEGIN SELECT RAISE(ABORT, 'events are append-only: they are removed only with their run'); END;
