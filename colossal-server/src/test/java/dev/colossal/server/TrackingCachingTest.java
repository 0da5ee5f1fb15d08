package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT CACHING in OPTIN and OPTOUT mode, each command sent alone: it covers the next command, or
 * every command of the transaction a MULTI right after it opens, and ends with EXEC or DISCARD.
 * rueidis caches a read by sending CLIENT CACHING YES, MULTI, PTTL k, GET k, EXEC; Colossal
 * forgot the CACHING at the MULTI, so rueidis never heard of another client's change. (TrackingTest
 * pings every connection after each step, and a PING ends a CACHING, so it cannot show this.)
 * Where redis-server is installed, its answers are the reference.
 */
class TrackingCachingTest {

    @TempDir
    Path dir;

    @Test
    void cachingCoversTheTransactionAfterIt() throws Exception {
        List<String> want = List.of(
                "optin: >2 $10 invalidate *1 $2 t1 >2 $10 invalidate *1 $2 t2",
                "optin: >2 $10 invalidate *1 $2 t5",
                "optout: >2 $10 invalidate *1 $2 t7 >2 $10 invalidate *1 $2 t9");
        TestServers.sameOnBoth(dir.resolve("data"), want, TrackingCachingTest::told);
    }

    /** What the tracking connection is told of the other's writes after each round of reads. */
    private static List<String> told(int port) throws Exception {
        List<String> got = new ArrayList<>();
        try (Wire reader = new Wire(port); Wire writer = new Wire(port)) {
            reader.call("HELLO", "3");
            reader.call("CLIENT", "TRACKING", "ON", "OPTIN");
            // t1, t2: read in the transaction; t3: after EXEC, no longer covered
            got.add("optin: " + round(reader, writer, new String[][] {{"CLIENT", "CACHING", "YES"}, {"MULTI"},
                {"PTTL", "t1"}, {"GET", "t2"}, {"EXEC"}, {"GET", "t3"}}, "t1", "t2", "t3"));
            // t4: queued but discarded; t5: CACHING covers one command, a CLIENT one aside; t6 after it
            got.add("optin: " + round(reader, writer, new String[][] {{"CLIENT", "CACHING", "YES"}, {"MULTI"},
                {"GET", "t4"}, {"DISCARD"}, {"CLIENT", "CACHING", "YES"}, {"CLIENT", "GETREDIR"}, {"GET", "t5"},
                {"GET", "t6"}}, "t4", "t5", "t6"));
            reader.call("CLIENT", "TRACKING", "OFF");
            reader.call("CLIENT", "TRACKING", "ON", "OPTOUT");
            // t8: CACHING NO over the transaction; t7 and t9 outside it
            got.add("optout: " + round(reader, writer, new String[][] {{"GET", "t7"}, {"CLIENT", "CACHING", "NO"},
                {"MULTI"}, {"GET", "t8"}, {"EXEC"}, {"GET", "t9"}}, "t7", "t8", "t9"));
        }
        return got;
    }

    private static String round(Wire reader, Wire writer, String[][] reads, String... keys) throws Exception {
        for (String[] read : reads) {
            reader.call(read);
        }
        for (String k : keys) {
            writer.call("SET", k, "changed");
        }
        // the invalidations come before the PING's answer
        return PubSubDifferentialTest.upToSentinel(reader, "PONG").replace("\r\n", " ").strip();
    }
}
