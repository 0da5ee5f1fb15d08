package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server driven by redis-py, installed from PyPI with pip when it is missing. */
class RedisPyTest {

    @TempDir
    Path dir;

    @Test
    void redisPyWorksOverResp2AndResp3IncludingItsLuaLock() throws Exception {
        Path python = TestServers.onPath("python3");
        if (python == null || !redisPyPresent(python) && !installRedisPy(python)) {
            System.err.println("!!! redis-py is not available and pip could not install it: redis-py test SKIPPED. "
                    + "Install it with 'python3 -m pip install redis'.");
            Assumptions.abort("redis-py not available");
        }
        Path script = dir.resolve("redis_py_check.py");
        try (InputStream in = RedisPyTest.class.getResourceAsStream("/redis_py_check.py")) {
            Files.copy(in, script);
        }
        try (ColossalServer server = TestServers.colossal(dir.resolve("data"))) {
            Path out = dir.resolve("redis-py.out");
            int exit = TestServers.run(List.of(python.toString(), script.toString(), Integer.toString(server.port())), out);
            String log = Files.readString(out);
            assertEquals(0, exit, log);
            assertTrue(log.contains("ok RESP2"), log);
            assertTrue(log.contains("ok RESP2 pubsub"), log);
            assertTrue(log.contains("ok RESP2: Lock acquire/extend/reacquire/release"), log);
            assertTrue(log.contains("ok RESP2 hashes"), log);
            assertTrue(log.contains("ok RESP2 lists"), log);
            assertTrue(log.contains("ok RESP2 sets"), log);
            assertTrue(log.contains("ok RESP2 sorted sets"), log);
            assertTrue(log.contains("ok redis://host:port/N"), log);
            assertTrue(log.contains("passed"), log);
            System.err.print(log);
        }
    }

    private boolean redisPyPresent(Path python) throws IOException, InterruptedException {
        return TestServers.run(List.of(python.toString(), "-c", "import redis"), dir.resolve("import.out")) == 0;
    }

    private boolean installRedisPy(Path python) throws IOException, InterruptedException {
        System.err.println("redis-py is missing: installing it with 'python3 -m pip install --quiet redis'");
        Path log = dir.resolve("pip.out");
        if (TestServers.run(List.of(python.toString(), "-m", "pip", "install", "--quiet", "redis"), log) == 0
                || TestServers.run(List.of(python.toString(), "-m", "pip", "install", "--quiet", "--user", "redis"), log) == 0) {
            return redisPyPresent(python);
        }
        System.err.println("pip failed:\n" + Files.readString(log));
        return false;
    }
}
