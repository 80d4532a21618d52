"""PgQueuer (PyPI) beside HotelKit's queue, for scripts/compare workers: JOBS no-op jobs enqueued
into a fresh database, then drained by one QueueManager dequeuing BATCH at a time.

usage: pgqueuer_throughput.py DSN JOBS BATCH
Prints one JSON line: {"jobs": N, "seconds": S} (the drain alone, not the enqueue)."""
import asyncio
import json
import sys
import time

import asyncpg
from pgqueuer.qm import QueueManager
from pgqueuer.queries import Queries
from pgqueuer.types import QueueExecutionMode


async def main(dsn, jobs, batch):
    connection = await asyncpg.connect(dsn)
    queries = Queries.from_asyncpg_connection(connection)
    await queries.install()
    for start in range(0, jobs, 5000):
        count = min(5000, jobs - start)
        await queries.enqueue(["noop"] * count, [None] * count, [0] * count)
    manager = QueueManager(queries)

    @manager.entrypoint("noop")
    async def noop(job):
        pass

    started = time.perf_counter()
    await manager.run(batch_size=batch, mode=QueueExecutionMode.drain)
    seconds = time.perf_counter() - started
    remaining = await connection.fetchval("SELECT count(*) FROM pgqueuer")
    await connection.close()
    if remaining:
        raise SystemExit(f"PgQueuer left {remaining} jobs in its queue")
    print(json.dumps({"jobs": jobs, "seconds": seconds}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
