"""A PostgreSQL server of a script's own (scripts/compare store|workers, scripts/workers), from Debian's packages."""
import glob
import os
import shutil
import socket
import subprocess
import tempfile


class Postgres:
    """A PostgreSQL server of the benchmark's own, from Debian's packages, with
    its default durability (fsync on): initdb in a temporary folder, a free
    loopback port, run as the postgres user when this runs as root."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
        if not bins:
            raise SystemExit("PostgreSQL is not installed: scripts/ensure-deps postgresql")
        self.bin = bins[-1]
        self.folder = tempfile.mkdtemp(prefix="hotelkit-bench-pg-")
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.password = "bench-secret"
        with open(os.path.join(self.folder, "pw"), "w") as f:
            f.write(self.password)
        if self.as_user:
            shutil.chown(self.folder, "postgres")
            shutil.chown(os.path.join(self.folder, "pw"), "postgres")
        self.tool("initdb", "-D", self.data, "-U", "hotelkit", "--pwfile=" + os.path.join(self.folder, "pw"),
                  "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C")
        self.tool("pg_ctl", "-D", self.data, "-l", os.path.join(self.folder, "log"), "-w", "-o",
                  f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")

    @property
    def data(self):
        return os.path.join(self.folder, "data")

    def tool(self, name, *argv):
        subprocess.run([*self.as_user, os.path.join(self.bin, name), *argv], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    def fresh_database(self, name):
        """Drops and makes `name` again, outside any timing; returns its URL."""
        common = ["-h", self.folder, "-p", str(self.port), "-U", "hotelkit"]
        subprocess.run([os.path.join(self.bin, "dropdb"), *common, "--if-exists", name], check=True)
        subprocess.run([os.path.join(self.bin, "createdb"), *common, name], check=True)
        return f"postgres://hotelkit:{self.password}@127.0.0.1:{self.port}/{name}?sslmode=disable"

    def stop(self):
        self.tool("pg_ctl", "-D", self.data, "-m", "fast", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def restart(self):
        """pg_ctl restart -m fast: every connection is dropped, and the server comes back on the same port."""
        self.tool("pg_ctl", "-D", self.data, "-l", os.path.join(self.folder, "log"), "-w", "-m", "fast", "-o",
                  f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "restart")

    def psql(self, database, sql):
        """Runs sql on database through the socket; returns its unaligned, tuples-only output."""
        out = subprocess.run([os.path.join(self.bin, "psql"), "-h", self.folder, "-p", str(self.port), "-U", "hotelkit", "-d", database,
                              "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, capture_output=True, text=True)
        return out.stdout.strip()
