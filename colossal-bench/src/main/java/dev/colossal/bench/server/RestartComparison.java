package dev.colossal.bench.server;

import dev.colossal.bench.Dirs;
import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What a persistent server is for, side by side with redis-server keeping its data the way Redis
 * does by default (an RDB snapshot): the same keys written into both through {@code redis-cli
 * --pipe}, then the memory each process holds, {@code SAVE}, the bytes each keeps on disk, and how
 * long a restart takes until it answers a GET of the last key written (redis-server loads its
 * snapshot first; ours maps its file). Both restart with their files in the page cache, as after a
 * planned restart on a machine with room for them.
 */
final class RestartComparison {

    private static final int VALUE_BYTES = 16;
    private final int keys;
    private final int rounds;
    private final Path dir;

    RestartComparison(int keys, int rounds, Path dir) {
        this.keys = keys;
        this.rounds = rounds;
        this.dir = dir;
    }

    /** Fills both servers, measures them and stops them; @return the rows */
    List<Row> run() throws Exception {
        Path redisDir = Files.createDirectories(dir.resolve("redis"));
        Path ourDir = dir.resolve("ours");
        int redisPort = ServerSuite.freePort();
        int ourPort = ServerSuite.freePort();
        Supplier<ProcessBuilder> redis = () -> ServerSuite.redisServer(redisPort, "--dir", redisDir.toString(),
                "--dbfilename", "dump.rdb");
        Supplier<ProcessBuilder> ours = () -> ServerSuite.ourServer(ourPort, ourDir);
        Process p = ServerSuite.started(redis.get(), redisPort);
        Process o = ServerSuite.started(ours.get(), ourPort);
        List<Row> rows = new ArrayList<>();
        String what = String.format(Locale.ROOT, "%,d keys of %d B", keys, VALUE_BYTES);
        try {
            fill(ourPort);
            fill(redisPort);
            Rss or = Rss.of(o.pid());
            Rss pr = Rss.of(p.pid());
            rows.add(Row.versus(what + ": memory of the server process (RSS)", "colossal serve", mib(or.total()),
                    "redis-server 7", mib(pr.total()), false, null)
                    .withNote(String.format(Locale.ROOT, "VmRSS after redis-cli --pipe wrote the keys; ours: %.0f MiB"
                            + " of it the map file's pages (page cache the kernel can reclaim and read back), %.0f MiB"
                            + " the JVM's own", or.file() / MIB, or.anon() / MIB)));
            double oursSave = seconds(() -> call(ourPort, "SAVE"));
            double redisSave = seconds(() -> call(redisPort, "SAVE"));
            rows.add(Row.versus(what + ": SAVE", "colossal serve", new Jmh.Result(oursSave, Double.NaN, "s"),
                    "redis-server 7", new Jmh.Result(redisSave, Double.NaN, "s"), false, null)
                    .withNote("every key on the device when SAVE answers: ours forces the map file's dirty pages"
                            + " (msync), redis-server writes its snapshot dump.rdb"));
            rows.add(Row.versus(what + ": bytes on disk", "colossal serve", mib(Dirs.apparentBytes(ourDir)), "redis-server 7",
                    mib(Dirs.apparentBytes(redisDir)), false, null)
                    .withNote("ours: the map file, which is the live table and entries (written in place, no"
                            + " snapshot); redis-server: dump.rdb, a compact snapshot (LZF) of a table that lives in"
                            + " memory"));
            double[] oursTimes = new double[rounds];
            double[] redisTimes = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                // Who restarts first alternates, as in every other comparison of the suite.
                for (int turn = 0; turn < 2; turn++) {
                    if ((r + turn) % 2 == 0) {
                        Restarted again = restart(o, ours.get(), ourPort);
                        o = again.server();
                        oursTimes[r] = again.seconds();
                    } else {
                        Restarted again = restart(p, redis.get(), redisPort);
                        p = again.server();
                        redisTimes[r] = again.seconds();
                    }
                }
            }
            for (int port : new int[] {ourPort, redisPort}) {
                String size = call(port, "DBSIZE");
                if (!size.equals(":" + keys)) {
                    throw new IOException("after its restarts the server on port " + port + " has " + size
                            + " keys, not " + keys);
                }
            }
            rows.add(Row.versus(what + ": restart until a GET is answered", "colossal serve", median(oursTimes),
                    "redis-server 7", median(redisTimes), false, null)
                    .withNote("from starting the process (ours a JVM) to the value of the last key written; SIGTERM"
                            + " before each start; files in the page cache; median of " + rounds + "; rounds ours/"
                            + "redis-server (s): " + pairs(oursTimes, redisTimes)));
        } finally {
            for (Process server : List.of(o, p)) {
                server.destroy();
                server.waitFor(30, TimeUnit.SECONDS);
            }
        }
        return rows;
    }

    /** A server started again, and the seconds it took to answer. */
    private record Restarted(Process server, double seconds) {}

    /** Stops {@code server} and starts {@code again}, timed until it answers the last key's GET. */
    private Restarted restart(Process server, ProcessBuilder again, int port) throws Exception {
        server.destroy();
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            throw new IOException("the server on port " + port + " did not stop within 60 s of SIGTERM");
        }
        String expected = "$" + VALUE_BYTES;
        byte[] get = command("GET", key(keys - 1));
        long start = System.nanoTime();
        Process started = again.start();
        long deadline = start + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline && started.isAlive()) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                // redis-server answers -LOADING while it reads its snapshot: ask again.
                if (reply(s, get).equals(expected)) {
                    return new Restarted(started, (System.nanoTime() - start) / 1e9);
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(5);
        }
        throw new IOException("the server restarted on port " + port + " did not answer GET within 5 min");
    }

    /** Writes every key through {@code redis-cli --pipe}, the tool Redis documents for mass insertion. */
    private void fill(int port) throws Exception {
        Process cli = new ProcessBuilder("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port), "--pipe")
                .redirectErrorStream(true).start();
        try (OutputStream out = new BufferedOutputStream(cli.getOutputStream(), 1 << 16)) {
            for (int i = 0; i < keys; i++) {
                out.write(command("SET", key(i), String.format(Locale.ROOT, "%0" + VALUE_BYTES + "d", i)));
            }
        }
        String said = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!cli.waitFor(10, TimeUnit.MINUTES) || cli.exitValue() != 0 || !said.contains("errors: 0, replies: " + keys)) {
            throw new IOException("redis-cli --pipe into port " + port + " failed:\n" + said);
        }
    }

    private static String key(int i) {
        return "key:" + i;
    }

    private static byte[] command(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the first line of the reply to {@code args} on a new connection */
    private static String call(int port, String... args) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout((int) TimeUnit.MINUTES.toMillis(5));
            return reply(s, command(args));
        }
    }

    private static String reply(Socket s, byte[] request) throws IOException {
        s.getOutputStream().write(request);
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\r'; ) {
            if (b < 0) {
                throw new IOException("connection closed");
            }
            line.append((char) b);
        }
        return line.toString();
    }

    private interface Action {
        void run() throws Exception;
    }

    private static double seconds(Action a) throws Exception {
        long t0 = System.nanoTime();
        a.run();
        return (System.nanoTime() - t0) / 1e9;
    }

    private static final double MIB = 1024.0 * 1024;

    private static Jmh.Result mib(long bytes) {
        return new Jmh.Result(bytes / MIB, Double.NaN, "MiB");
    }


    private static Jmh.Result median(double[] seconds) {
        double[] v = seconds.clone();
        java.util.Arrays.sort(v);
        return new Jmh.Result(v[v.length / 2], v.length > 1 ? (v[v.length - 1] - v[0]) / 2 : Double.NaN, "s");
    }

    private static String pairs(double[] ours, double[] peer) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < ours.length; i++) {
            sb.append(String.format(Locale.ROOT, "%s%.2f/%.2f", i == 0 ? "" : ", ", ours[i], peer[i]));
        }
        return sb.toString();
    }

    /** A process's resident memory from /proc/PID/status: all of it, its anonymous part and its file pages. */
    private record Rss(long total, long anon, long file) {
        static Rss of(long pid) throws IOException {
            long[] kb = new long[3];
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                String[] f = line.split("\\s+");
                int i = switch (f[0]) {
                    case "VmRSS:" -> 0;
                    case "RssAnon:" -> 1;
                    case "RssFile:" -> 2;
                    default -> -1;
                };
                if (i >= 0) {
                    kb[i] = Long.parseLong(f[1]);
                }
            }
            return new Rss(kb[0] * 1024, kb[1] * 1024, kb[2] * 1024);
        }
    }
}
