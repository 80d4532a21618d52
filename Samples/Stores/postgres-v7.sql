--
-- PostgreSQL database dump
--

\restrict ZiFbPJsNyWnUVRH7a5FNFHwjKZ5fwRHYxNQjIVLUNVDS8lB8FpalZSQhUPPfas8

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: hotelkit_append_page(text, text, text, text, text[], text[], text[], double precision[], double precision[], text[], bigint[], bigint, bigint, text, boolean, double precision, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hotelkit_append_page(text, text, text, text, text[], text[], text[], double precision[], double precision[], text[], bigint[], bigint, bigint, text, boolean, double precision, bigint) RETURNS SETOF boolean
    LANGUAGE plpgsql
    AS $_$
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
$_$;


--
-- Name: hotelkit_claim(text, text[], bigint, double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hotelkit_claim(claimer text, wanted_kinds text[], wanted bigint, lease_seconds double precision) RETURNS TABLE(id bigint, kind text, args text, attempt integer, max_attempts integer, fence bigint, timeout_seconds double precision)
    LANGUAGE plpgsql
    SET enable_sort TO 'off'
    AS $$
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
$$;


--
-- Name: hotelkit_refuse(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hotelkit_refuse(reason text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'HK001', MESSAGE = reason;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: hotelkit_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.hotelkit_schema (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: hotels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.hotels (
    list_id bigint NOT NULL,
    code text NOT NULL,
    name text,
    address text,
    latitude double precision,
    longitude double precision,
    logo_url text,
    addtime bigint,
    "position" bigint NOT NULL
);


--
-- Name: images; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.images (
    url text NOT NULL,
    filter text NOT NULL,
    file text NOT NULL,
    bytes integer NOT NULL,
    last_access double precision NOT NULL,
    etag text,
    last_modified text,
    max_age double precision,
    stored_at double precision,
    data bytea
);


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    args jsonb NOT NULL,
    unique_key text,
    state text DEFAULT 'available'::text NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    attempt integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    scheduled_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    attempted_at timestamp with time zone,
    finalized_at timestamp with time zone,
    last_error text,
    worker text,
    lease_until timestamp with time zone,
    fence bigint DEFAULT 0 NOT NULL,
    every_seconds double precision,
    timeout_seconds double precision,
    crashes integer DEFAULT 0 NOT NULL,
    CONSTRAINT jobs_kind_check CHECK ((kind = ANY (ARRAY['list'::text, 'logos'::text]))),
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts > 0)),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['available'::text, 'running'::text, 'retryable'::text, 'completed'::text, 'dead'::text, 'cancelled'::text])))
);


--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: jobs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.jobs_id_seq OWNED BY public.jobs.id;


--
-- Name: leader; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leader (
    name text NOT NULL,
    holder text NOT NULL,
    elected_at timestamp with time zone DEFAULT now() NOT NULL,
    until timestamp with time zone NOT NULL
);


--
-- Name: lists; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lists (
    id bigint NOT NULL,
    profile text NOT NULL,
    endpoint text NOT NULL,
    city text NOT NULL,
    keyword text DEFAULT ''::text NOT NULL,
    checkpoint text,
    exhausted boolean DEFAULT false NOT NULL,
    fetched_at double precision NOT NULL,
    hotel_count bigint DEFAULT 0 NOT NULL,
    first_position bigint DEFAULT 0 NOT NULL,
    next_position bigint DEFAULT 0 NOT NULL
);


--
-- Name: lists_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.lists_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: lists_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.lists_id_seq OWNED BY public.lists.id;


--
-- Name: paused_kinds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.paused_kinds (
    kind text NOT NULL,
    paused_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedules (
    id bigint NOT NULL,
    kind text NOT NULL,
    args jsonb NOT NULL,
    unique_key text NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    timeout_seconds double precision,
    every_seconds double precision NOT NULL,
    next_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_success_at timestamp with time zone,
    last_error text,
    last_error_at timestamp with time zone,
    CONSTRAINT schedules_every_seconds_check CHECK ((every_seconds >= (1)::double precision)),
    CONSTRAINT schedules_kind_check CHECK ((kind = ANY (ARRAY['list'::text, 'logos'::text]))),
    CONSTRAINT schedules_max_attempts_check CHECK ((max_attempts > 0))
);


--
-- Name: schedules_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.schedules_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: schedules_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.schedules_id_seq OWNED BY public.schedules.id;


--
-- Name: workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workers (
    id text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    kinds text[] NOT NULL,
    concurrency integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_seconds double precision DEFAULT 30 NOT NULL
);


--
-- Name: jobs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs ALTER COLUMN id SET DEFAULT nextval('public.jobs_id_seq'::regclass);


--
-- Name: lists id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lists ALTER COLUMN id SET DEFAULT nextval('public.lists_id_seq'::regclass);


--
-- Name: schedules id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules ALTER COLUMN id SET DEFAULT nextval('public.schedules_id_seq'::regclass);


--
-- Data for Name: hotelkit_schema; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.hotelkit_schema (version, name, applied_at) FROM stdin;
1	lists, hotels, image index	2026-11-29 03:46:04.750576+00
2	hotels without a per-row foreign key check	2026-11-29 03:46:04.750576+00
3	jobs and workers	2026-11-29 03:46:04.750576+00
4	hotelkit_refuse	2026-11-29 03:46:04.750576+00
5	schedules, leader, paused kinds, job deadlines	2026-11-29 03:46:04.750576+00
6	hotelkit_claim	2026-11-29 03:46:04.750576+00
7	hotelkit_append_page	2026-11-29 03:46:04.750576+00
\.


--
-- Data for Name: hotels; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.hotels (list_id, code, name, address, latitude, longitude, logo_url, addtime, "position") FROM stdin;
1	H000002	Central Riverside Hotel Paris	884 Nanjing Road, Paris	48.692566	2.348352	http://127.0.0.1:18931/logos/H000002.png	1759999864	-10
1	H000006	Royal Central Hotel Paris	912 Fifth Avenue, Paris	48.712634	2.280273	http://127.0.0.1:18931/logos/H000006.png	1759999694	-9
1	H000010	Plaza Riverside Hotel Paris	860 Chang'an Avenue, Paris	48.703619	2.409834	http://127.0.0.1:18931/logos/H000010.png	1759999508	-8
1	H000014	Palace Riverside Hotel Paris	30 Chang'an Avenue, Paris	49.023904	2.304462	http://127.0.0.1:18931/logos/H000014.png	1759999352	-7
1	H000022	Harbour Central Hotel Paris	438 Fifth Avenue, Paris	48.685071	2.321131	http://127.0.0.1:18931/logos/H000022.png	1759998995	-6
1	H000026	Palace Grand Hotel Paris	303 Fifth Avenue, Paris	48.830806	2.20268	http://127.0.0.1:18931/logos/H000026.png	1759998783	-5
1	H000030	Imperial Palace Hotel Paris	83 Fifth Avenue, Paris	48.858492	2.288055	http://127.0.0.1:18931/logos/H000030.png	1759998597	-4
1	H000034	Plaza Central Hotel Paris	128 Fifth Avenue, Paris	48.69665	2.345636	http://127.0.0.1:18931/logos/H000034.png	1759998439	-3
1	H000042	Park Plaza Hotel Paris	346 Chang'an Avenue, Paris	48.936493	2.21	http://127.0.0.1:18931/logos/H000042.png	1759998085	-2
1	H000046	Royal Central Hotel Paris	239 Ginza, Paris	49.021623	2.42327	http://127.0.0.1:18931/logos/H000046.png	1759997945	-1
1	H000050	Grand Imperial Hotel Paris	133 Fifth Avenue, Paris	48.975915	2.415567	http://127.0.0.1:18931/logos/H000050.png	1759997717	0
1	H000054	Garden Royal Hotel Paris	761 Fifth Avenue, Paris	49.000202	2.321558	http://127.0.0.1:18931/logos/H000054.png	1759997562	1
1	H000062	Park Royal Hotel Paris	781 Fifth Avenue, Paris	48.746244	2.289146	http://127.0.0.1:18931/logos/H000062.png	1759997276	2
1	H000066	Royal Central Hotel Paris	744 Huaihai Road, Paris	48.956197	2.4043	http://127.0.0.1:18931/logos/H000066.png	1759997054	3
1	H000070	Harbour Imperial Hotel Paris	696 Rue de Rivoli, Paris	48.844443	2.169723	http://127.0.0.1:18931/logos/H000070.png	1759996866	4
1	H000074	Royal Park Hotel Paris	131 Strand, Paris	48.872228	2.310265	http://127.0.0.1:18931/logos/H000074.png	1759996730	5
1	H000082	Royal Park Hotel Paris	936 Rue de Rivoli, Paris	49.031383	2.162204	http://127.0.0.1:18931/logos/H000082.png	1759996352	6
1	H000086	Riverside Central Hotel Paris	501 Ginza, Paris	48.806425	2.466142	http://127.0.0.1:18931/logos/H000086.png	1759996117	7
1	H000090	Imperial Central Hotel Paris	198 Chang'an Avenue, Paris	48.815133	2.52119	http://127.0.0.1:18931/logos/H000090.png	1759995985	8
1	H000094	Park Riverside Hotel Paris	275 Nanjing Road, Paris	48.752332	2.37852	http://127.0.0.1:18931/logos/H000094.png	1759995769	9
\.


--
-- Data for Name: images; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.images (url, filter, file, bytes, last_access, etag, last_modified, max_age, stored_at, data) FROM stdin;
http://127.0.0.1:18931/logos/H000006.png		/tmp/fixtures/sqlite/hotelkit/images/4b/4bdef7a4982541db79502f1b1c3138519d7b4dfb7af7ca21f4275139ec5143cb.img	26427	1795923964.9177992	"H000006-1"	Thu, 09 Oct 2025 08:48:14 GMT	3600	1795923958.513362	\N
http://127.0.0.1:18931/logos/H000010.png		/tmp/fixtures/sqlite/hotelkit/images/e6/e6c68c2d21cb8ab879a9777ded73dcd4d77d721336aa24e650975b0df11d0b81.img	19577	1795923964.9181137	"H000010-1"	Thu, 09 Oct 2025 08:45:08 GMT	3600	1795923958.3894787	\N
http://127.0.0.1:18931/logos/H000014.png		/tmp/fixtures/sqlite/hotelkit/images/14/14f935d0e18067d96045ff46dc2e9baee58ad06ba4a66204647f22eb3c91df20.img	13427	1795923964.9182882	"H000014-1"	Thu, 09 Oct 2025 08:42:32 GMT	3600	1795923958.3803635	\N
http://127.0.0.1:18931/logos/H000022.png		/tmp/fixtures/sqlite/hotelkit/images/21/214a33ad4d79cc7e599ce9251f05483aeba0eca9139f9f89bc872b3af3922bf4.img	7486	1795923964.9185739	"H000022-1"	Thu, 09 Oct 2025 08:36:35 GMT	3600	1795923958.4098334	\N
http://127.0.0.1:18931/logos/H000026.png		/tmp/fixtures/sqlite/hotelkit/images/ce/cecb24bd28f26a5811bae052d4e32f849aa3f3480fda1da0adfe10037ac0e298.img	3412	1795923964.9187198	"H000026-1"	Thu, 09 Oct 2025 08:33:03 GMT	3600	1795923958.3135476	\N
http://127.0.0.1:18931/logos/H000030.png		/tmp/fixtures/sqlite/hotelkit/images/f5/f5bfb0bcd2400dfa0eb9c7e04c9ebe4607801675d699cc3747429fbea754e465.img	13401	1795923964.9189215	"H000030-1"	Thu, 09 Oct 2025 08:29:57 GMT	3600	1795923958.4576402	\N
http://127.0.0.1:18931/logos/H000034.png		/tmp/fixtures/sqlite/hotelkit/images/2d/2dada9d7c0add9cc6cc0913626203e2206ebbe892b018e2ff1e0e637031c642a.img	13379	1795923964.9190784	"H000034-1"	Thu, 09 Oct 2025 08:27:19 GMT	3600	1795923958.4936967	\N
http://127.0.0.1:18931/logos/H000042.png		/tmp/fixtures/sqlite/hotelkit/images/b1/b193e6801bfb1f14fea18bfed57e8281a357eb2df91fc3ba0ebe30d907321724.img	11010	1795923964.9192514	"H000042-1"	Thu, 09 Oct 2025 08:21:25 GMT	3600	1795923958.52956	\N
http://127.0.0.1:18931/logos/H000046.png		/tmp/fixtures/sqlite/hotelkit/images/cd/cd8748491c7eb4e3094123592ffac6d02a9a0602cdfe1454c98fdda7bc745ba3.img	5915	1795923964.9193811	"H000046-1"	Thu, 09 Oct 2025 08:19:05 GMT	3600	1795923958.538055	\N
http://127.0.0.1:18931/logos/H000002.png		/tmp/fixtures/sqlite/hotelkit/images/1d/1dc7b1f5fc7f452a65bf72af767a4ab14c7d7f8dc260e586d87fd3cf26fe6dac.img	12155	1795923964.9205317	"H000002-1"	Thu, 09 Oct 2025 08:51:04 GMT	3600	1795923958.3063605	\N
http://127.0.0.1:18931/logos/H000050.png		/tmp/fixtures/sqlite/hotelkit/images/65/65a5b2ff159f7364050ffe32b6f179793c0a182e122631814f98a3a86c8344a2.img	16757	1795923964.9465446	"H000050-1"	Thu, 09 Oct 2025 08:15:17 GMT	3600	1795923958.6708987	\N
http://127.0.0.1:18931/logos/H000054.png		/tmp/fixtures/sqlite/hotelkit/images/b1/b1b55403945d8254925305e5fee6621e6aa715a05446391ed1cfbcc2c5032a3f.img	21244	1795923964.9468331	"H000054-1"	Thu, 09 Oct 2025 08:12:42 GMT	3600	1795923958.7503343	\N
http://127.0.0.1:18931/logos/H000062.png		/tmp/fixtures/sqlite/hotelkit/images/75/75bb2edaa018ab0b33dd4bfc5b59baec87892eced1332dad0c5ffec587091ae6.img	8810	1795923964.9470181	"H000062-1"	Thu, 09 Oct 2025 08:07:56 GMT	3600	1795923958.617454	\N
http://127.0.0.1:18931/logos/H000066.png		/tmp/fixtures/sqlite/hotelkit/images/a1/a177777bd500c55affccb1955ce44645329c42e8ffbd0f58d2b4e32cbcf9bcb1.img	13646	1795923964.9471447	"H000066-1"	Thu, 09 Oct 2025 08:04:14 GMT	3600	1795923958.7498095	\N
http://127.0.0.1:18931/logos/H000070.png		/tmp/fixtures/sqlite/hotelkit/images/7b/7bdbc5c3e499b2a2b3eb525ec0a0978c03a2e7e3a2459a6f751ba6b4f45217f5.img	11091	1795923964.9472487	"H000070-1"	Thu, 09 Oct 2025 08:01:06 GMT	3600	1795923958.7096577	\N
http://127.0.0.1:18931/logos/H000074.png		/tmp/fixtures/sqlite/hotelkit/images/2e/2e2b8161442340937d165e18fc905b55a16ce7a98544fff9421b91c5f7094e89.img	10240	1795923964.947328	"H000074-1"	Thu, 09 Oct 2025 07:58:50 GMT	3600	1795923958.6679032	\N
http://127.0.0.1:18931/logos/H000082.png		/tmp/fixtures/sqlite/hotelkit/images/8b/8bae9cbe9155c002b278c4354be30ddcc0f1222fad85009b7599059e76ff8971.img	3604	1795923964.9474182	"H000082-1"	Thu, 09 Oct 2025 07:52:32 GMT	3600	1795923958.7588081	\N
http://127.0.0.1:18931/logos/H000086.png		/tmp/fixtures/sqlite/hotelkit/images/92/92a2e9b7f49f9852be2b9a0a9a96c21f33c621add269fa776e38ed6974a785ca.img	10087	1795923964.9475021	"H000086-1"	Thu, 09 Oct 2025 07:48:37 GMT	3600	1795923958.7895663	\N
http://127.0.0.1:18931/logos/H000090.png		/tmp/fixtures/sqlite/hotelkit/images/39/39ac331c44e21d949a7ebc135fe48789b377742ce669ba7d5519e3b8825a2955.img	24177	1795923964.947655	"H000090-1"	Thu, 09 Oct 2025 07:46:25 GMT	3600	1795923958.8328524	\N
http://127.0.0.1:18931/logos/H000094.png		/tmp/fixtures/sqlite/hotelkit/images/8f/8f656497751b890e20b1d9423b718ca8d508ae70a61eb06708847e6b12918542.img	21299	1795923964.9485142	"H000094-1"	Thu, 09 Oct 2025 07:42:49 GMT	3600	1795923958.9006655	\N
\.


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.jobs (id, kind, args, unique_key, state, priority, attempt, max_attempts, scheduled_at, created_at, attempted_at, finalized_at, last_error, worker, lease_until, fence, every_seconds, timeout_seconds, crashes) FROM stdin;
1	list	{"city": "London", "logos": false, "filter": "", "profile": {"name": "sample"}, "endpoint": "http://127.0.0.1:18931/soap", "pageSize": 50}	list|sample|http://127.0.0.1:18931/soap|London|	available	0	0	5	2026-11-29 03:46:05.21118+00	2026-11-29 03:46:05.21118+00	\N	\N	\N	\N	\N	0	\N	3600	0
2	list	{"city": "Tokyo", "logos": false, "filter": "", "profile": {"name": "sample"}, "endpoint": "http://127.0.0.1:18931/soap", "pageSize": 50}	list|sample|http://127.0.0.1:18931/soap|Tokyo|	available	0	0	5	2026-11-29 03:46:05.21118+00	2026-11-29 03:46:05.21118+00	\N	\N	\N	\N	\N	0	\N	3600	0
3	list	{"city": "New York", "logos": false, "filter": "", "profile": {"name": "sample"}, "endpoint": "http://127.0.0.1:18931/soap", "pageSize": 50}	list|sample|http://127.0.0.1:18931/soap|New York|	available	0	0	5	2026-11-29 03:46:05.362069+00	2026-11-29 03:46:05.362069+00	\N	\N	\N	\N	\N	0	\N	3600	0
\.


--
-- Data for Name: leader; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.leader (name, holder, elected_at, until) FROM stdin;
\.


--
-- Data for Name: lists; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.lists (id, profile, endpoint, city, keyword, checkpoint, exhausted, fetched_at, hotel_count, first_position, next_position) FROM stdin;
1	sample	http://127.0.0.1:18931/soap	Paris		{"nextCursor":"1759995769","usedCursors":["1759997945","1759995769"],"nextPage":0,"pagesReceived":2}	f	1795923964.938442	20	-10	10
\.


--
-- Data for Name: paused_kinds; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.paused_kinds (kind, paused_at) FROM stdin;
\.


--
-- Data for Name: schedules; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schedules (id, kind, args, unique_key, priority, max_attempts, timeout_seconds, every_seconds, next_at, created_at, last_success_at, last_error, last_error_at) FROM stdin;
1	list	{"city": "New York", "logos": false, "filter": "", "profile": {"name": "sample"}, "endpoint": "http://127.0.0.1:18931/soap", "pageSize": 50}	list|sample|http://127.0.0.1:18931/soap|New York|	0	5	3600	21600	2026-11-29 09:46:05.362069+00	2026-11-29 03:46:05.362069+00	\N	\N	\N
\.


--
-- Data for Name: workers; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.workers (id, host, pid, kinds, concurrency, started_at, heartbeat_at, lease_seconds) FROM stdin;
\.


--
-- Name: jobs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.jobs_id_seq', 3, true);


--
-- Name: lists_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.lists_id_seq', 1, true);


--
-- Name: schedules_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.schedules_id_seq', 1, true);


--
-- Name: hotelkit_schema hotelkit_schema_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hotelkit_schema
    ADD CONSTRAINT hotelkit_schema_pkey PRIMARY KEY (version);


--
-- Name: hotels hotels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hotels
    ADD CONSTRAINT hotels_pkey PRIMARY KEY (list_id, code);


--
-- Name: images images_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.images
    ADD CONSTRAINT images_pkey PRIMARY KEY (url, filter);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: leader leader_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leader
    ADD CONSTRAINT leader_pkey PRIMARY KEY (name);


--
-- Name: lists lists_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lists
    ADD CONSTRAINT lists_pkey PRIMARY KEY (id);


--
-- Name: lists lists_profile_endpoint_city_keyword_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lists
    ADD CONSTRAINT lists_profile_endpoint_city_keyword_key UNIQUE (profile, endpoint, city, keyword);


--
-- Name: paused_kinds paused_kinds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paused_kinds
    ADD CONSTRAINT paused_kinds_pkey PRIMARY KEY (kind);


--
-- Name: schedules schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (id);


--
-- Name: schedules schedules_unique_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_unique_key_key UNIQUE (unique_key);


--
-- Name: workers workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (id);


--
-- Name: hotels_by_position; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hotels_by_position ON public.hotels USING btree (list_id, "position");


--
-- Name: jobs_ended; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_ended ON public.jobs USING btree (finalized_at) WHERE (state = ANY (ARRAY['completed'::text, 'dead'::text, 'cancelled'::text]));


--
-- Name: jobs_leases; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_leases ON public.jobs USING btree (lease_until) WHERE (state = 'running'::text);


--
-- Name: jobs_live_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX jobs_live_key ON public.jobs USING btree (unique_key) WHERE (state = ANY (ARRAY['available'::text, 'running'::text, 'retryable'::text]));


--
-- Name: jobs_ready; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_ready ON public.jobs USING btree (priority DESC, scheduled_at, id) WHERE (state = ANY (ARRAY['available'::text, 'retryable'::text]));


--
-- Name: schedules_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_due ON public.schedules USING btree (next_at);


--
-- PostgreSQL database dump complete
--

\unrestrict ZiFbPJsNyWnUVRH7a5FNFHwjKZ5fwRHYxNQjIVLUNVDS8lB8FpalZSQhUPPfas8

