package dev.colossal.bench.map;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one measurement in a fresh JVM of the benchmark jar (one store per JVM, as JMH forks do) and
 * reads back the {@code key=value} pairs of the last line it prints. Holds {@code /tmp/jmh.lock}
 * meanwhile, the lock JMH itself takes, so these runs never overlap another JMH run on the machine.
 */
final class ChildJvm {

    private ChildJvm() {}

    /**
     * @param flags JVM flags (heap size, the peers' --add-opens)
     * @param main  the class to run
     * @param args  its arguments
     * @return the pairs of the child's last line of output
     */
    static Map<String, String> run(List<String> flags, Class<?> main, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(flags);
        command.addAll(List.of("-cp", jar(), main.getName()));
        command.addAll(List.of(args));
        try (FileChannel lockFile = FileChannel.open(Path.of("/tmp/jmh.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock ignored = waitFor(lockFile)) {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(1, TimeUnit.HOURS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(main.getSimpleName() + " " + String.join(" ", args)
                        + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + "): " + out);
            }
            String[] lines = out.strip().split("\n");
            Map<String, String> pairs = new HashMap<>();
            for (String pair : lines[lines.length - 1].trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    pairs.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
            return pairs;
        }
    }

    /**
     * The rounds of both sides of one comparison.
     *
     * @param ours  our runs' pairs
     * @param peer  the peer's runs' pairs
     */
    record Rounds(List<Map<String, String>> ours, List<Map<String, String>> peer) {

        /** @return the median of one key over our rounds ({@code peer = false}) or the peer's */
        double median(boolean peerSide, String key) {
            double[] v = (peerSide ? peer : ours).stream().mapToDouble(m -> Double.parseDouble(m.get(key)))
                    .sorted().toArray();
            int n = v.length;
            return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        }

        /** @return every round's value of one key on both sides, for a row's note */
        String spread(String key) {
            return "rounds: ours " + ours.stream().map(m -> m.get(key)).toList()
                    + ", peer " + peer.stream().map(m -> m.get(key)).toList();
        }
    }

    /**
     * Runs {@code main} for ours and for the peer, {@code rounds} times each, alternating which goes
     * first so that both sides see the same background load.
     */
    static Rounds alternate(int rounds, Class<?> main, List<String> ourFlags, List<String> ourArgs,
                            List<String> peerFlags, List<String> peerArgs) throws Exception {
        Rounds r = new Rounds(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < rounds; i++) {
            for (int side = 0; side < 2; side++) {
                boolean oursNow = (i + side) % 2 == 0;
                (oursNow ? r.ours : r.peer).add(run(oursNow ? ourFlags : peerFlags, main,
                        (oursNow ? ourArgs : peerArgs).toArray(String[]::new)));
            }
        }
        return r;
    }

    private static FileLock waitFor(FileChannel file) throws IOException, InterruptedException {
        boolean told = false;
        while (true) {
            FileLock lock = file.tryLock();
            if (lock != null) {
                return lock;
            }
            if (!told) {
                System.err.println("map: another JMH run holds /tmp/jmh.lock; waiting...");
                told = true;
            }
            Thread.sleep(2_000);
        }
    }

    private static String jar() {
        try {
            return Path.of(ChildJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new UncheckedIOException(new IOException("cannot locate the benchmark jar", e));
        }
    }
}
