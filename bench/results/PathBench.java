package dev.colossal.server;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * In-process: thread CPU ns per {@code CommandTable.execute(Client, byte[][])} call of small commands,
 * no sockets, no parser ({@code command-path-inprocess.sh} runs it against several builds).
 */
public final class PathBench {
    static byte[][] cmd(String s) {
        String[] p = s.split(" ");
        byte[][] a = new byte[p.length][];
        for (int i = 0; i < p.length; i++) a[i] = p[i].getBytes(StandardCharsets.UTF_8);
        return a;
    }

    public static void main(String[] argv) throws Exception {
        Path dir = Files.createTempDirectory("pathbench");
        CommandTable[] t = new CommandTable[1];
        int n = Integer.parseInt(argv[0]);
        String[] tests = {"echo a", "incr cnt", "exists k", "ttl k", "hget hs a", "hset hs b v", "sadd ss b", "zadd zs 5 b", "lpush l v|rpop l"};
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1), x -> t[0] = x)) {
            CommandTable table = t[0];
            Client c = new Client(99, "bench", System.currentTimeMillis(), true);
            for (String setup : new String[] {"set k v", "hset hs a 1 b 2 c 3", "sadd ss a b c", "zadd zs 1 a 2 b 3 c"}) {
                table.execute(c, cmd(setup));
                c.reply.len = 0;
            }
            try { // as a connection keeps it, where the build has the field
                java.lang.reflect.Field f = Client.class.getDeclaredField("clockKept");
                f.setBoolean(c, true);
            } catch (NoSuchFieldException e) {
                // older build: every command reads the clock
            }
            c.clockNanos = System.nanoTime();
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            StringBuilder out = new StringBuilder();
            for (int pass = 0; pass < 3; pass++) {
                for (String test : tests) {
                    String[] parts = test.split("\\|");
                    byte[][][] cmds = new byte[parts.length][][];
                    for (int i = 0; i < parts.length; i++) cmds[i] = cmd(parts[i]);
                    int calls = n / parts.length * parts.length;
                    long t0 = mx.getCurrentThreadCpuTime();
                    for (int i = 0; i < calls; i++) {
                        table.execute(c, cmds[i % cmds.length]);
                        c.reply.len = 0;
                    }
                    long t1 = mx.getCurrentThreadCpuTime();
                    if (pass == 2) {
                        out.append(String.format("%s=%.1f ", test.split(" ")[0], (t1 - t0) / (double) calls));
                    }
                }
            }
            System.out.println(out.toString().trim());
        }
    }
}
