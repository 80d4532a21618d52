// The migrations themselves, apart from how they are applied (PostgresSchema.swift): a new one goes at the end.
extension PostgresSchema {
    /// Every migration, oldest first; versions count up from 1.
    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "lists, hotels, image index",
            statements: [
                """
                CREATE TABLE lists (
                    id bigserial PRIMARY KEY,
                    profile text NOT NULL,
                    endpoint text NOT NULL,
                    city text NOT NULL,
                    keyword text NOT NULL DEFAULT '',
                    checkpoint text,
                    exhausted boolean NOT NULL DEFAULT false,
                    fetched_at double precision NOT NULL,
                    -- Kept with every page, so no page reads the list's rows to count
                    -- them or find its ends: the rows, the smallest position, one past the largest.
                    hotel_count bigint NOT NULL DEFAULT 0,
                    first_position bigint NOT NULL DEFAULT 0,
                    next_position bigint NOT NULL DEFAULT 0,
                    UNIQUE (profile, endpoint, city, keyword)
                )
                """,
                // Service order: a first page's rows take positions below the smallest, as in SQLite.
                """
                CREATE TABLE hotels (
                    list_id bigint NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
                    code text NOT NULL,
                    name text,
                    address text,
                    latitude double precision,
                    longitude double precision,
                    logo_url text,
                    addtime bigint,
                    position bigint NOT NULL,
                    PRIMARY KEY (list_id, code)
                )
                """,
                "CREATE INDEX hotels_by_position ON hotels (list_id, position)",
                // Each logo with its validators and its processed bytes: any
                // reader on any machine can serve the thumbnail (`data`).
                """
                CREATE TABLE images (
                    url text NOT NULL,
                    filter text NOT NULL,
                    file text NOT NULL,
                    bytes integer NOT NULL,
                    last_access double precision NOT NULL,
                    etag text,
                    last_modified text,
                    max_age double precision,
                    stored_at double precision,
                    data bytea,
                    PRIMARY KEY (url, filter)
                )
                """,
            ]),
        // Lists are deleted only with their rows (clear), and a page's writer
        // holds its list's row locked: the key's check, a trigger per row,
        // cost as much as inserting the row.
        Migration(
            version: 2, name: "hotels without a per-row foreign key check",
            statements: [
                "ALTER TABLE hotels DROP CONSTRAINT hotels_list_id_fkey"
            ]),
        // The job queue (JobQueue): every state change one statement.
        Migration(
            version: 3, name: "jobs and workers",
            statements: [
                """
                CREATE TABLE jobs (
                    id bigserial PRIMARY KEY,
                    kind text NOT NULL CHECK (kind IN ('list', 'logos')),
                    args jsonb NOT NULL,
                    -- At most one live job per key (a list job's profile, endpoint and list).
                    unique_key text,
                    state text NOT NULL DEFAULT 'available'
                        CHECK (state IN ('available', 'running', 'retryable', 'completed', 'dead', 'cancelled')),
                    priority integer NOT NULL DEFAULT 0,
                    attempt integer NOT NULL DEFAULT 0,
                    max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
                    scheduled_at timestamptz NOT NULL DEFAULT now(),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    attempted_at timestamptz,
                    finalized_at timestamptz,
                    last_error text,
                    -- The worker holding it, until when, and the fencing token of its claim: one more on every claim.
                    worker text,
                    lease_until timestamptz,
                    fence bigint NOT NULL DEFAULT 0,
                    every_seconds double precision
                )
                """,
                "CREATE UNIQUE INDEX jobs_live_key ON jobs (unique_key) WHERE state IN ('available', 'running', 'retryable')",
                // What a claim reads, in its order; small, since ended jobs leave it.
                "CREATE INDEX jobs_ready ON jobs (priority DESC, scheduled_at, id) WHERE state IN ('available', 'retryable')",
                "CREATE INDEX jobs_leases ON jobs (lease_until) WHERE state = 'running'",
                "CREATE INDEX jobs_ended ON jobs (finalized_at) WHERE state IN ('completed', 'dead', 'cancelled')",
                """
                CREATE TABLE workers (
                    id text PRIMARY KEY,
                    host text NOT NULL,
                    pid integer NOT NULL,
                    kinds text[] NOT NULL,
                    concurrency integer NOT NULL,
                    started_at timestamptz NOT NULL DEFAULT now(),
                    heartbeat_at timestamptz NOT NULL DEFAULT now()
                )
                """,
            ]),
        // A statement that finds it cannot do its work refuses itself with
        // this, which undoes all of it: a load-more page in one statement.
        Migration(
            version: 4, name: "hotelkit_refuse",
            statements: [
                """
                CREATE OR REPLACE FUNCTION hotelkit_refuse(reason text) RETURNS boolean LANGUAGE plpgsql AS $$
                BEGIN
                    RAISE EXCEPTION USING ERRCODE = '\(refusedState)', MESSAGE = reason;
                END
                $$
                """
            ]),
        // The fleet unattended (JobQueue+Maintenance): schedules as rows of
        // their own, one elected leader, paused kinds, a deadline per job,
        // and the deaths of a job's workers counted.
        Migration(
            version: 5, name: "schedules, leader, paused kinds, job deadlines",
            statements: [
                """
                CREATE TABLE schedules (
                    id bigserial PRIMARY KEY,
                    kind text NOT NULL CHECK (kind IN ('list', 'logos')),
                    args jsonb NOT NULL,
                    -- The list's key: its jobs carry the same one, and at most one of them is live.
                    unique_key text NOT NULL UNIQUE,
                    priority integer NOT NULL DEFAULT 0,
                    max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
                    timeout_seconds double precision,
                    every_seconds double precision NOT NULL CHECK (every_seconds >= 1),
                    -- The next run's time: the last scheduled time plus every, never a completion's.
                    next_at timestamptz NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    last_success_at timestamptz,
                    last_error text,
                    last_error_at timestamptz
                )
                """,
                "CREATE INDEX schedules_due ON schedules (next_at)",
                "ALTER TABLE jobs ADD COLUMN timeout_seconds double precision",
                // Expired leases in a row: a job that kills its worker is dead at the third, not passed round the fleet.
                "ALTER TABLE jobs ADD COLUMN crashes integer NOT NULL DEFAULT 0",
                "ALTER TABLE workers ADD COLUMN lease_seconds double precision NOT NULL DEFAULT 30",
                "CREATE TABLE paused_kinds (kind text PRIMARY KEY, paused_at timestamptz NOT NULL DEFAULT now())",
                // The leader's lease: a row, not a session lock, so it works behind PgBouncer in transaction mode.
                """
                CREATE TABLE leader (
                    name text PRIMARY KEY,
                    holder text NOT NULL,
                    elected_at timestamptz NOT NULL DEFAULT now(),
                    until timestamptz NOT NULL
                )
                """,
                // Lists that were chained to completion (every_seconds) become schedules: the next run after the live one,
                // with the deadline a job enqueued now gets (an hour for a list, ten minutes for its logos).
                """
                INSERT INTO schedules (kind, args, unique_key, priority, max_attempts, timeout_seconds, every_seconds, next_at, last_success_at)
                SELECT DISTINCT ON (j.unique_key) j.kind, j.args, j.unique_key, j.priority, j.max_attempts,
                       CASE j.kind WHEN 'list' THEN 3600 ELSE 600 END, greatest(j.every_seconds, 1),
                       CASE WHEN j.state IN ('available', 'running', 'retryable')
                            THEN j.scheduled_at + make_interval(secs => greatest(j.every_seconds, 1)) ELSE now() END,
                       (SELECT max(d.finalized_at) FROM jobs d WHERE d.unique_key = j.unique_key AND d.state = 'completed')
                FROM jobs j WHERE j.every_seconds IS NOT NULL AND j.unique_key IS NOT NULL
                ORDER BY j.unique_key, j.id DESC
                """,
            ]),
        // A claim in one round trip (JobQueue.claim), where it took four (BEGIN,
        // SET LOCAL enable_sort, the statement, COMMIT): the function turns
        // sorts off for its own run, and PL/pgSQL keeps its plan per session.
        Migration(
            version: 6, name: "hotelkit_claim",
            statements: [
                """
                CREATE OR REPLACE FUNCTION hotelkit_claim(claimer text, wanted_kinds text[], wanted bigint, lease_seconds double precision)
                RETURNS TABLE (id bigint, kind text, args text, attempt integer, max_attempts integer, fence bigint, timeout_seconds double precision)
                LANGUAGE plpgsql VOLATILE SET enable_sort = off AS $$
                #variable_conflict use_column
                BEGIN
                    RETURN QUERY
                    WITH ready AS (
                        SELECT id FROM jobs
                        WHERE state IN ('available', 'retryable') AND scheduled_at <= now() AND kind = ANY(wanted_kinds)
                          AND kind NOT IN (SELECT kind FROM paused_kinds)
                        ORDER BY priority DESC, scheduled_at, id
                        LIMIT wanted
                        FOR UPDATE SKIP LOCKED
                    )
                    UPDATE jobs SET state = 'running', attempt = jobs.attempt + 1, attempted_at = now(), worker = claimer,
                        lease_until = now() + make_interval(secs => lease_seconds), fence = jobs.fence + 1
                    FROM ready WHERE jobs.id = ready.id
                    RETURNING jobs.id, jobs.kind, jobs.args::text, jobs.attempt, jobs.max_attempts, jobs.fence, jobs.timeout_seconds;
                END
                $$
                """
            ]),
        // A load-more page (PostgresHotelStore.appendAtOnce) as a function:
        // PL/pgSQL keeps the statement's plan per session, which a page of
        // 50 rows otherwise spent as much time planning as half its insert.
        // The arguments: the list's key, the rows' seven columns, the job
        // and fence (null: no lease), the checkpoint, whether the list ended,
        // the fetch time and the rows the page must add.
        Migration(
            version: 7, name: "hotelkit_append_page",
            statements: [
                """
                CREATE OR REPLACE FUNCTION hotelkit_append_page(text, text, text, text, text[], text[], text[], float8[], float8[], text[], int8[],
                                                                int8, int8, text, boolean, float8, int8)
                RETURNS SETOF boolean LANGUAGE plpgsql VOLATILE AS $$
                BEGIN
                    RETURN QUERY
                    WITH fence AS (
                        SELECT 1 FROM jobs WHERE id = $12 AND fence = $13 AND state = 'running' FOR SHARE
                    ), list AS (
                        SELECT id, next_position FROM lists
                        WHERE profile = $1 AND endpoint = $2 AND city = $3 AND keyword = $4
                          AND ($12 IS NULL OR EXISTS (SELECT 1 FROM fence)) AND set_config('synchronous_commit', 'off', true) = 'off'
                        FOR UPDATE
                    ), inserted AS (
                        INSERT INTO hotels (list_id, code, name, address, latitude, longitude, logo_url, addtime, position)
                        SELECT list.id, r.code, r.name, r.address, r.latitude, r.longitude, r.logo_url, r.addtime, list.next_position + r.n - 1
                        FROM list, unnest($5, $6, $7, $8, $9, $10, $11) WITH ORDINALITY AS r (code, name, address, latitude, longitude, logo_url, addtime, n)
                        RETURNING 1
                    ), counted AS (
                        SELECT count(*) AS n FROM inserted
                    ), updated AS (
                        UPDATE lists SET hotel_count = lists.hotel_count + counted.n, next_position = lists.next_position + counted.n,
                            checkpoint = $14, exhausted = $15, fetched_at = $16
                        FROM counted WHERE lists.id = (SELECT id FROM list) AND counted.n = $17
                        RETURNING 1
                    )
                    SELECT hotelkit_refuse('the page is not a plain load-more page') FROM counted WHERE NOT EXISTS (SELECT 1 FROM updated);
                END
                $$
                """
            ]),
        // The record's new fields (HotelFields); and the load-more page takes its rows as one jsonb array, read
        // into the table's own row type, so the function names no column and a field added later needs no new one.
        Migration(
            version: 8, name: "record fields; hotelkit_append_page reads jsonb rows",
            statements: [
                """
                ALTER TABLE hotels ADD COLUMN IF NOT EXISTS phone text, ADD COLUMN IF NOT EXISTS chain_code text,
                    ADD COLUMN IF NOT EXISTS rating double precision, ADD COLUMN IF NOT EXISTS postal_code text,
                    ADD COLUMN IF NOT EXISTS city text, ADD COLUMN IF NOT EXISTS country_code text, ADD COLUMN IF NOT EXISTS refs jsonb
                """,
                """
                DROP FUNCTION IF EXISTS hotelkit_append_page(text, text, text, text, text[], text[], text[], float8[], float8[], text[], int8[],
                                                             int8, int8, text, boolean, float8, int8)
                """,
                """
                CREATE OR REPLACE FUNCTION hotelkit_append_page(text, text, text, text, jsonb, int8, int8, text, boolean, float8, int8)
                RETURNS SETOF boolean LANGUAGE plpgsql VOLATILE AS $$
                BEGIN
                    RETURN QUERY
                    WITH fence AS (
                        SELECT 1 FROM jobs WHERE id = $6 AND fence = $7 AND state = 'running' FOR SHARE
                    ), list AS (
                        SELECT id, next_position FROM lists
                        WHERE profile = $1 AND endpoint = $2 AND city = $3 AND keyword = $4
                          AND ($6 IS NULL OR EXISTS (SELECT 1 FROM fence)) AND set_config('synchronous_commit', 'off', true) = 'off'
                        FOR UPDATE
                    ), inserted AS (
                        INSERT INTO hotels
                        SELECT h.* FROM list, jsonb_array_elements($5) WITH ORDINALITY AS e (row, n),
                            jsonb_populate_record(NULL::hotels, e.row || jsonb_build_object('list_id', list.id, 'position', list.next_position + e.n - 1)) AS h
                        RETURNING 1
                    ), counted AS (
                        SELECT count(*) AS n FROM inserted
                    ), updated AS (
                        UPDATE lists SET hotel_count = lists.hotel_count + counted.n, next_position = lists.next_position + counted.n,
                            checkpoint = $8, exhausted = $9, fetched_at = $10
                        FROM counted WHERE lists.id = (SELECT id FROM list) AND counted.n = $11
                        RETURNING 1
                    )
                    SELECT hotelkit_refuse('the page is not a plain load-more page') FROM counted WHERE NOT EXISTS (SELECT 1 FROM updated);
                END
                $$
                """,
            ]),
        Migration(
            version: 9, name: "the catalogue: properties, members, reviews, decisions, retired ids; match jobs",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS properties (
                    id text PRIMARY KEY, scope text NOT NULL, name text, city text, latitude double precision, longitude double precision,
                    confidence text NOT NULL, suppliers integer NOT NULL, created_at double precision NOT NULL, matched_at double precision NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS properties_by_scope ON properties (scope, id)",
                """
                CREATE TABLE IF NOT EXISTS property_members (
                    property_id text NOT NULL REFERENCES properties (id) ON DELETE CASCADE, scope text NOT NULL,
                    profile text NOT NULL, endpoint text NOT NULL, code text NOT NULL, list_id bigint NOT NULL, name text,
                    PRIMARY KEY (scope, profile, endpoint, code))
                """,
                "CREATE INDEX IF NOT EXISTS property_members_by_property ON property_members (property_id)",
                "CREATE TABLE IF NOT EXISTS match_reviews (scope text NOT NULL, score double precision NOT NULL, pair text NOT NULL)",
                "CREATE INDEX IF NOT EXISTS match_reviews_by_scope ON match_reviews (scope)",
                """
                CREATE TABLE IF NOT EXISTS match_decisions (
                    first_profile text NOT NULL, first_endpoint text NOT NULL, first_code text NOT NULL,
                    second_profile text NOT NULL, second_endpoint text NOT NULL, second_code text NOT NULL,
                    verdict text NOT NULL, decided_at double precision NOT NULL,
                    PRIMARY KEY (first_profile, first_endpoint, first_code, second_profile, second_endpoint, second_code))
                """,
                "CREATE TABLE IF NOT EXISTS retired_property_ids (id text PRIMARY KEY, successor text, retired_at double precision NOT NULL)",
                // A list job that changed rows queues a match job for its city.
                """
                ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_kind_check,
                    ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('list', 'logos', 'match'))
                """,
                """
                ALTER TABLE schedules DROP CONSTRAINT IF EXISTS schedules_kind_check,
                    ADD CONSTRAINT schedules_kind_check CHECK (kind IN ('list', 'logos', 'match'))
                """,
            ]),
        // A logo's perceptual hash, kept with its index entries, for matching.
        Migration(
            version: 10, name: "logos' perceptual hashes",
            statements: [
                "ALTER TABLE images ADD COLUMN IF NOT EXISTS perceptual_hash bigint"
            ]),
        // The load-more page is a statement HotelKit makes from its field table
        // (PostgresHotelStore.appendAtOnceSQL(table:columnList:selectList:)), its rows one binary array per
        // field: a function that read them as jsonb cost the server twice the time.
        Migration(
            version: 11, name: "the load-more page made from the field table",
            statements: [
                "DROP FUNCTION IF EXISTS hotelkit_append_page(text, text, text, text, jsonb, int8, int8, text, boolean, float8, int8)"
            ]),
        // A run writes only the catalogue's rows it changes, known by their digests (ScopeMatch.changes); a
        // scope's time of matching is its own row, as an unchanged property's row is no longer written; and pairs
        // to review of one score are listed in pair order (ReviewPair.orderKey), whichever run wrote each.
        Migration(
            version: 12, name: "the catalogue's digests, and each scope's time of matching",
            statements: [
                "ALTER TABLE properties ADD COLUMN IF NOT EXISTS digest bigint",
                "ALTER TABLE match_reviews ADD COLUMN IF NOT EXISTS digest bigint, ADD COLUMN IF NOT EXISTS pair_order text",
                "CREATE TABLE IF NOT EXISTS match_scopes (scope text PRIMARY KEY, matched_at double precision NOT NULL)",
            ]),
        // A scope whose input is what its last run was made from is not matched again (ScopeFingerprint): the run's
        // fingerprint and summary, how many properties and pairs to review it stored, so that rows changed
        // since are noticed, and when it stamped them, which an older HotelKit's write (matched_at alone) leaves behind.
        Migration(
            version: 13, name: "each scope's last run's stamp",
            statements: [
                """
                ALTER TABLE match_scopes ADD COLUMN IF NOT EXISTS stamped_at double precision,
                ADD COLUMN IF NOT EXISTS fingerprint text, ADD COLUMN IF NOT EXISTS summary text,
                ADD COLUMN IF NOT EXISTS properties integer, ADD COLUMN IF NOT EXISTS reviews integer
                """
            ]),
    ]
}
