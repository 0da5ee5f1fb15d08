package dev.colossal.server;

import java.nio.file.Files;
import java.nio.file.Path;
import redis.clients.jedis.Jedis;

/**
 * The server {@link MoveCrashPointsTest} kills: run in a JVM of its own, it makes key s of the
 * kind it is given in database 0, writes the key's reading to a file beside the data, and MOVEs
 * it to database 1 with a hook that halts the JVM (no shutdown hooks, no clean close: a kill)
 * after the map write it is told: "both" for the first after which both databases hold the key,
 * or a number N for the Nth write of the move (of either database's element map).
 */
final class MoveKillChild {

    /** The exit status of the halt: a kill's stand-in, told apart from any other exit. */
    static final int HALTED = 77;
    /** The file, in the data directory, the moved value's reading goes to. */
    static final String VALUE_FILE = "moved-value.txt";

    private MoveKillChild() {}

    /** The exit status of a move that ran through before the write it was to be halted at. */
    static final int RAN_THROUGH = 0;

    /** @param args the data directory, the kind of value to move, and where to halt: "both" or a write's number */
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        ColossalServer server = TestServers.colossal(data);
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            ValueKinds.smallThresholds(j);
            j.select(1);
            ValueKinds.make(j, "y", "list");   // database 1 has its element map, and its hook, from the start
            j.select(0);
            ValueKinds.make(j, "s", args[1]);
            ValueKinds.make(j, "x", "list");
            Files.writeString(data.resolve(VALUE_FILE), ValueKinds.read(j, "s"));
            KeyValueStore db0 = server.context().dbs.store(0);
            KeyValueStore db1 = server.context().dbs.store(1);
            byte[] s = ValueKinds.bytes("s");
            boolean both = args[2].equals("both");
            int at = both ? 0 : Integer.parseInt(args[2]);
            int[] writes = {0};
            Runnable halt = () -> {
                if (both ? db0.raw(s) != null && db1.raw(s) != null : ++writes[0] == at) {
                    Runtime.getRuntime().halt(HALTED);
                }
            };
            server.context().dbs.opened(0).elements(true).afterWrite = halt;
            server.context().dbs.opened(1).elements(true).afterWrite = halt;
            j.move("s", 1);
            server.close();
            System.exit(both ? 1 : RAN_THROUGH);   // with "both", a move that never had the key in both databases
        }
    }
}
