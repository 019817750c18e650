/// The run store's schema, as an ordered list of migrations; the version is `PRAGMA user_version`.
///
/// A migration that has shipped is never edited: a change is a new migration at the end. Opening a store applies
/// the missing ones in one transaction, so a store is always at one version or the next, never between.
/// Time columns hold `StoreTimestamp` text; JSON columns hold `StoreJSON` text and are checked with
/// `json_valid`. Outcome and status columns hold the core's raw values, unchecked by SQL, so a later outcome
/// needs no table rebuild.
enum StoreSchema {
    /// `PRAGMA application_id` of a Pipe run store: "PIPE" in ASCII.
    static let applicationID: Int32 = 0x5049_5045

    struct Migration {
        var version: Int
        var summary: String
        var sql: String
    }

    /// The schema version this Pipe writes and understands up to: the last migration's (numbers are handed out to
    /// branches in advance, so one may be missing while its branch has not landed).
    static var currentVersion: Int { migrations.last?.version ?? 0 }

    static let migrations: [Migration] = [
        Migration(
            version: 1, summary: "runs, layers, attempts, test results and artifacts: the run record's shape",
            sql: """
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
                """),
        Migration(
            version: 2,
            summary: "what several processes share: run owners, cancellation requests, interruptions, remote "
                + "clean-up, append-only sign-offs and events",
            sql: """
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
                """),
        Migration(
            version: 3,
            summary: "host leases (a slot of a host, one simulator) held by runs across processes, and host health "
                + "checks",
            sql: """
                CREATE TABLE host_leases (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('host-slot', 'simulator')),
                    host TEXT NOT NULL,
                    simulator_udid TEXT,
                    run_id TEXT NOT NULL,
                    layer TEXT,
                    owner_host TEXT NOT NULL,
                    owner_pid INTEGER NOT NULL,
                    owner_start TEXT,
                    acquired_at TEXT NOT NULL,
                    CHECK ((kind = 'simulator') = (simulator_udid IS NOT NULL))
                ) STRICT;
                CREATE UNIQUE INDEX host_leases_one_run_per_simulator ON host_leases (host, simulator_udid)
                WHERE kind = 'simulator';
                CREATE UNIQUE INDEX host_leases_one_slot_per_run ON host_leases (host, run_id) WHERE kind = 'host-slot';
                CREATE INDEX host_leases_by_run ON host_leases (run_id);

                CREATE TABLE host_health (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    host TEXT NOT NULL,
                    checked_at TEXT NOT NULL,
                    usable INTEGER NOT NULL CHECK (usable IN (0, 1)),
                    problem TEXT,
                    latency_seconds REAL CHECK (latency_seconds IS NULL OR latency_seconds >= 0),
                    source TEXT NOT NULL
                ) STRICT;
                CREATE INDEX host_health_by_host ON host_health (host, checked_at);
                """),
        Migration(
            version: 4,
            summary: "the controller's queue (run ids chosen at enqueueing, priority, claims), the lock that admits "
                + "one controller per store, schedules' last slots and watches' last seen commits",
            sql: """
                CREATE TABLE run_queue (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    run_id TEXT NOT NULL UNIQUE,
                    pipeline TEXT NOT NULL,
                    ref TEXT,
                    parameters TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(parameters)),
                    source TEXT NOT NULL,
                    priority INTEGER NOT NULL,
                    requested_by TEXT NOT NULL,
                    reason TEXT,
                    trigger_key TEXT UNIQUE,
                    state TEXT NOT NULL,
                    attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1),
                    requeue_of TEXT,
                    enqueued_at TEXT NOT NULL,
                    claimed_at TEXT,
                    claimed_host TEXT,
                    claimed_pid INTEGER,
                    claimed_start TEXT,
                    finished_at TEXT,
                    problem TEXT,
                    CHECK ((state = 'claimed') = (claimed_pid IS NOT NULL))
                ) STRICT;
                CREATE INDEX run_queue_waiting ON run_queue (priority, enqueued_at, seq) WHERE state = 'queued';
                CREATE INDEX run_queue_by_state ON run_queue (state, priority, enqueued_at, seq);

                CREATE TABLE controller_lock (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    owner_host TEXT NOT NULL,
                    owner_pid INTEGER NOT NULL,
                    owner_start TEXT,
                    acquired_at TEXT NOT NULL,
                    config_path TEXT
                ) STRICT;

                CREATE TABLE schedule_state (
                    name TEXT PRIMARY KEY NOT NULL,
                    baseline TEXT NOT NULL,
                    last_slot TEXT,
                    last_run_id TEXT,
                    updated_at TEXT NOT NULL
                ) STRICT;

                CREATE TABLE watch_heads (
                    watch TEXT NOT NULL,
                    branch TEXT NOT NULL,
                    sha TEXT NOT NULL,
                    seen_at TEXT NOT NULL,
                    PRIMARY KEY (watch, branch)
                ) STRICT;
                """),
        Migration(
            version: 5,
            summary: "an append-only audit log of requests from outside (chat commands, allowed or refused)",
            sql: """
                CREATE TABLE audit_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    source TEXT NOT NULL,
                    at TEXT NOT NULL,
                    entry TEXT NOT NULL CHECK (json_valid(entry))
                ) STRICT;
                CREATE INDEX audit_log_by_source ON audit_log (source, at);
                CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                """),
        Migration(
            version: 6,
            summary: "the trust level of a run's code and why (RunRecord.code)",
            sql: """
                ALTER TABLE runs ADD COLUMN code TEXT CHECK (code IS NULL OR json_valid(code));
                """),
        Migration(
            version: 7,
            summary: "forges: the event behind a queued run, webhook deliveries seen, the outbox of updates for "
                + "forges, the ids of what Pipe made there, approvals of fork pull requests",
            sql: """
                ALTER TABLE run_queue ADD COLUMN forge TEXT CHECK (forge IS NULL OR json_valid(forge));
                ALTER TABLE run_queue ADD COLUMN rerun_of TEXT;

                CREATE TABLE forge_deliveries (
                    body_digest TEXT PRIMARY KEY NOT NULL,
                    forge TEXT NOT NULL,
                    delivery_id TEXT,
                    event TEXT NOT NULL,
                    rate_key TEXT,
                    received_at TEXT NOT NULL
                ) STRICT;
                CREATE UNIQUE INDEX forge_deliveries_by_id ON forge_deliveries (forge, delivery_id)
                    WHERE delivery_id IS NOT NULL;
                CREATE INDEX forge_deliveries_by_rate_key ON forge_deliveries (rate_key, received_at)
                    WHERE rate_key IS NOT NULL;
                CREATE INDEX forge_deliveries_by_time ON forge_deliveries (received_at);

                CREATE TABLE forge_outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    forge TEXT NOT NULL,
                    target TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    payload TEXT NOT NULL CHECK (json_valid(payload)),
                    run_id TEXT,
                    created_at TEXT NOT NULL,
                    state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at TEXT NOT NULL,
                    last_error TEXT,
                    claimed_by TEXT,
                    claimed_until TEXT,
                    sent_at TEXT,
                    CHECK ((state = 'sending') = (claimed_by IS NOT NULL))
                ) STRICT;
                CREATE INDEX forge_outbox_waiting ON forge_outbox (next_attempt_at, seq) WHERE state = 'pending';
                CREATE INDEX forge_outbox_by_target ON forge_outbox (forge, target, state, seq);

                CREATE TABLE forge_objects (
                    forge TEXT NOT NULL,
                    key TEXT NOT NULL,
                    id TEXT NOT NULL,
                    recorded_at TEXT NOT NULL,
                    PRIMARY KEY (forge, key)
                ) STRICT;

                CREATE TABLE forge_approvals (
                    forge TEXT NOT NULL,
                    repository TEXT NOT NULL,
                    number INTEGER NOT NULL,
                    head_sha TEXT NOT NULL,
                    approved_by TEXT NOT NULL,
                    via TEXT NOT NULL,
                    approved_at TEXT NOT NULL,
                    PRIMARY KEY (forge, repository, number, head_sha)
                ) STRICT;
                """),
        Migration(
            version: 8,
            summary: "forge runs found by pull request, branch or commit through an index, however long the queue",
            sql: """
                ALTER TABLE run_queue ADD COLUMN forge_name TEXT
                    GENERATED ALWAYS AS (json_extract(forge, '$.forge')) VIRTUAL;
                ALTER TABLE run_queue ADD COLUMN forge_repository TEXT
                    GENERATED ALWAYS AS (json_extract(forge, '$.repository')) VIRTUAL;
                ALTER TABLE run_queue ADD COLUMN forge_place TEXT GENERATED ALWAYS AS (
                    CASE
                        WHEN json_extract(forge, '$.number') IS NOT NULL
                            THEN 'pull-request:' || json_extract(forge, '$.number')
                        WHEN json_extract(forge, '$.event') = 'push' THEN 'pushes:' || json_extract(forge, '$.fetchRef')
                    END) VIRTUAL;
                ALTER TABLE run_queue ADD COLUMN forge_head TEXT
                    GENERATED ALWAYS AS (lower(json_extract(forge, '$.headSHA'))) VIRTUAL;
                CREATE INDEX run_queue_by_forge_place ON run_queue (forge_name, forge_repository, forge_place, seq);
                CREATE INDEX run_queue_by_forge_head ON run_queue (forge_name, forge_head, seq);
                """),
        Migration(
            version: 9,
            summary: "build-cache leases: one run at a time builds in a host's build cache (HostLease.Kind.buildCache)",
            sql: """
                CREATE TABLE host_leases_new (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('host-slot', 'simulator', 'build-cache')),
                    host TEXT NOT NULL,
                    simulator_udid TEXT,
                    build_cache TEXT,
                    run_id TEXT NOT NULL,
                    layer TEXT,
                    owner_host TEXT NOT NULL,
                    owner_pid INTEGER NOT NULL,
                    owner_start TEXT,
                    acquired_at TEXT NOT NULL,
                    CHECK ((kind = 'simulator') = (simulator_udid IS NOT NULL)),
                    CHECK ((kind = 'build-cache') = (build_cache IS NOT NULL))
                ) STRICT;
                INSERT INTO host_leases_new (id, kind, host, simulator_udid, run_id, layer, owner_host, owner_pid,
                    owner_start, acquired_at)
                SELECT id, kind, host, simulator_udid, run_id, layer, owner_host, owner_pid, owner_start, acquired_at
                FROM host_leases;
                DROP TABLE host_leases;
                ALTER TABLE host_leases_new RENAME TO host_leases;
                CREATE UNIQUE INDEX host_leases_one_run_per_simulator ON host_leases (host, simulator_udid)
                WHERE kind = 'simulator';
                CREATE UNIQUE INDEX host_leases_one_slot_per_run ON host_leases (host, run_id) WHERE kind = 'host-slot';
                CREATE UNIQUE INDEX host_leases_one_run_per_build_cache ON host_leases (host, build_cache)
                WHERE kind = 'build-cache';
                CREATE INDEX host_leases_by_run ON host_leases (run_id);
                """),
        Migration(
            version: 10,
            summary: "what an attachment artifact holds and whose test it is (ArtifactRecord.attachment)",
            sql: """
                ALTER TABLE artifacts ADD COLUMN attachment TEXT CHECK (attachment IS NULL OR json_valid(attachment));
                """),
        Migration(
            version: 11,
            summary: "the controllers serving a store that admits several (PostgreSQL), with their heartbeats",
            sql: """
                CREATE TABLE controllers (
                    owner_host TEXT NOT NULL,
                    owner_pid INTEGER NOT NULL,
                    owner_start TEXT,
                    config_path TEXT,
                    started_at TEXT NOT NULL,
                    heartbeat_at TEXT NOT NULL,
                    PRIMARY KEY (owner_host, owner_pid)
                ) STRICT;
                """),
        Migration(
            version: 12,
            summary:
                "release builds (ReleaseBuild) by run, commit and .ipa digest; sign-offs keep their fields and build",
            sql: """
                CREATE TABLE release_builds (
                    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
                    layer TEXT NOT NULL,
                    commit_sha TEXT NOT NULL,
                    ipa_sha256 TEXT,
                    record TEXT NOT NULL CHECK (json_valid(record)),
                    recorded_at TEXT NOT NULL,
                    PRIMARY KEY (run_id, layer)
                ) STRICT;
                CREATE INDEX release_builds_by_commit ON release_builds (commit_sha, recorded_at);
                CREATE INDEX release_builds_by_ipa ON release_builds (ipa_sha256);
                ALTER TABLE signoffs ADD COLUMN fields TEXT CHECK (fields IS NULL OR json_valid(fields));
                ALTER TABLE signoffs ADD COLUMN build_sha256 TEXT;
                """),
        Migration(
            version: 13,
            summary:
                "a test result keeps its test target; the list of live processes says which are controllers and "
                + "which are `pipe run`s",
            sql: """
                ALTER TABLE test_results ADD COLUMN target TEXT;
                ALTER TABLE controllers ADD COLUMN role TEXT NOT NULL DEFAULT 'controller';
                """),
        Migration(
            version: 14,
            summary:
                "requests every controller of a store must remember (RequestLedger): signed requests seen once, "
                + "and each sender's rate bucket",
            sql: """
                CREATE TABLE request_claims (
                    kind TEXT NOT NULL,
                    key TEXT NOT NULL,
                    expires_at TEXT NOT NULL,
                    PRIMARY KEY (kind, key)
                ) STRICT;
                CREATE INDEX request_claims_by_expiry ON request_claims (expires_at);
                CREATE TABLE request_buckets (
                    key TEXT PRIMARY KEY NOT NULL,
                    tokens REAL NOT NULL,
                    updated_at TEXT NOT NULL
                ) STRICT;
                CREATE INDEX request_buckets_by_update ON request_buckets (updated_at);
                """),
    ]
}
