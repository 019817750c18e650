-- Two runs as a Pipe at schema version 1 records them: one finished (a layer that passed on its second attempt,
-- with tests and artifacts) and one still running. Loaded after schema-v1.sql.
INSERT INTO runs (id, pipeline, pipeline_file, status, record_schema_version, request, requested_by, trigger_kind,
    commit_sha, resolved_ref, host_name, host, xcode, simulator, remote_run_folder, started_at, finished_at,
    duration_seconds, exit_code, problem, updated_at)
VALUES
    ('20261118-100000-1a2b', 'app-intents', 'pipelines/app-intents.yml', 'finished', 1,
     '{"parameters":{},"pipeline":"app-intents","reason":"nightly","ref":"main","requestedBy":"bob","trigger":"cli","workspace":"examples/reader-app"}',
     'bob', 'cli', '0123456789abcdef0123456789abcdef01234567', 'refs/heads/main', 'mac-1',
     '{"endpoint":"ci@127.0.0.1:2222","fingerprint":"SHA256:abc","keyType":"ssh-ed25519","name":"mac-1"}',
     'Xcode 16.2', NULL, 'pipe-work/runs/20261118-100000-1a2b', '2026-11-18T10:00:00.000Z',
     '2026-11-18T10:05:00.250Z', 300.25, 0, NULL, '2026-11-18T10:05:00.250Z'),
    ('20261118-110000-3c4d', 'app-intents', 'pipelines/app-intents.yml', 'running', 1,
     '{"parameters":{},"pipeline":"app-intents","ref":"HEAD","requestedBy":"carol","trigger":"cli","workspace":"examples/reader-app"}',
     'carol', 'cli', NULL, NULL, NULL, NULL, NULL, NULL, NULL, '2026-11-18T11:00:00.000Z', NULL, NULL, NULL, NULL,
     '2026-11-18T11:00:00.000Z');

INSERT INTO layers (id, run_id, position, name, plugin, gate, needs, outcome, evidence, started_at, finished_at)
VALUES
    (1, '20261118-100000-1a2b', 0, 'unit', 'xcodebuild-test', 'merge', '[]', 'passed', '["** TEST SUCCEEDED **"]',
     '2026-11-18T10:01:00.000Z', '2026-11-18T10:04:00.000Z'),
    (2, '20261118-110000-3c4d', 0, 'unit', 'xcodebuild-test', 'merge', '[]', NULL, '[]', NULL, NULL);

INSERT INTO attempts (id, layer_id, number, outcome, evidence, exit, simulator_udid, started_at, finished_at,
    duration_seconds, facts)
VALUES
    (1, 1, 1, 'infrastructure', '["connection dropped"]', 'lost', 'UDID-1', '2026-11-18T10:01:00.000Z',
     '2026-11-18T10:02:00.000Z', 60.0, '{}'),
    (2, 1, 2, 'passed', '["** TEST SUCCEEDED **"]', '0', 'UDID-2', '2026-11-18T10:02:30.000Z',
     '2026-11-18T10:04:00.000Z', 90.0, '{"processGroup":"4242"}');

INSERT INTO test_results (attempt_id, identifier, status, duration_seconds, failure_message, failure_location)
VALUES
    (2, 'ReadingIDTests/testNormalizesSpaces()', 'passed', 0.012, NULL, NULL),
    (2, 'ReadingIDTests/testRejectsEmpty()', 'passed', 0.004, NULL, NULL);

INSERT INTO artifacts (run_id, attempt_id, kind, path, bytes, sha256)
VALUES
    ('20261118-100000-1a2b', 2, 'exit-code', 'artifacts/20261118-100000-1a2b/unit/exit-code', 2, NULL),
    ('20261118-100000-1a2b', 2, 'result-bundle', 'artifacts/20261118-100000-1a2b/unit/Reader.xcresult', 81920,
     'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
