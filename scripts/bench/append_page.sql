-- The INSERT of hotelkit_append_page three ways: 100 pages of 500 rows, each way into an empty table
-- (BENCHMARKS.md, "The record's fields", session 26). It makes and drops its own tables.
-- usage: psql -d A_SCRATCH_DATABASE -f scripts/bench/append_page.sql
DROP TABLE IF EXISTS hotels;
CREATE TABLE hotels (
    list_id bigint NOT NULL, code text NOT NULL, name text, address text, latitude double precision, longitude double precision,
    logo_url text, addtime bigint, position bigint NOT NULL, phone text, chain_code text, rating double precision, postal_code text,
    city text, country_code text, refs jsonb, PRIMARY KEY (list_id, code));
CREATE INDEX hotels_by_position ON hotels (list_id, position);
-- A page of 500 rows as the client writes it.
DROP TABLE IF EXISTS page; CREATE TABLE page AS SELECT jsonb_agg(jsonb_build_object('code', 'H' || g, 'name', 'Grand Riverside Hotel ' || g, 'address', g || ' Grand Road',
    'latitude', 31.0 + g / 1e5, 'longitude', 121.4, 'logo_url', 'http://127.0.0.1:8080/logos/H' || g || '.png', 'addtime', 1799999927 - g,
    'phone', '+86 21 5555 ' || g, 'chain_code', 'HI', 'rating', 4.5, 'postal_code', '200001', 'city', 'Shanghai', 'country_code', 'CN',
    'refs', jsonb_build_object('giata', g::text))) AS rows FROM generate_series(1, 500) g;
CREATE TEMP TABLE arrays AS SELECT array_agg(r->>'code') c, array_agg(r->>'name') nm, array_agg(r->>'address') a, array_agg((r->>'latitude')::float8) la,
  array_agg((r->>'longitude')::float8) lo, array_agg(r->>'logo_url') u, array_agg((r->>'addtime')::int8) t FROM page, jsonb_array_elements(page.rows) r;
\timing on
-- Migration 7's: seven positional arrays.
DO $$ DECLARE x record; BEGIN SELECT * INTO x FROM arrays;
  FOR i IN 1..100 LOOP
    INSERT INTO hotels (list_id, code, name, address, latitude, longitude, logo_url, addtime, position)
    SELECT i, c, nm, a, la, lo, u, t, n - 1 FROM unnest(x.c, x.nm, x.a, x.la, x.lo, x.u, x.t) WITH ORDINALITY AS z (c, nm, a, la, lo, u, t, n);
  END LOOP; END $$;
TRUNCATE hotels;
-- The second variant again, beside it.
DO $$ DECLARE p jsonb := (SELECT rows FROM page); BEGIN
  FOR i IN 1..100 LOOP
    INSERT INTO hotels SELECT h.* FROM jsonb_array_elements(p) WITH ORDINALITY AS e (row, n),
        jsonb_populate_record(jsonb_populate_record(NULL::hotels, jsonb_build_object('list_id', i, 'position', e.n - 1)), e.row) AS h;
  END LOOP; END $$;
TRUNCATE hotels;
DO $$ DECLARE p jsonb := (SELECT rows FROM page); BEGIN
  FOR i IN 1..100 LOOP
    INSERT INTO hotels SELECT h.* FROM jsonb_array_elements(p) WITH ORDINALITY AS e (row, n),
        jsonb_populate_record(NULL::hotels, e.row || jsonb_build_object('list_id', i, 'position', e.n - 1)) AS h;
  END LOOP; END $$;
DROP TABLE hotels; DROP TABLE page;
