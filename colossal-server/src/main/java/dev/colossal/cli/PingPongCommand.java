package dev.colossal.cli;

import dev.colossal.ipc.IpcException;
import dev.colossal.ipc.PingPong;
import dev.colossal.ipc.SharedRegion;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code colossal pingpong --role odd|even}: two processes take turns on one shared counter and
 * report the round-trip time. Run one role in each of two terminals.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true,
        description = {"Round trips between two processes through one shared counter.",
            "Run '--role odd' in one terminal and '--role even' in another (either order on a fresh region)."})
public final class PingPongCommand implements Callable<Integer> {

    /** The role as typed on the command line. */
    enum RoleOption { odd, even }

    @Option(names = "--role", required = true, description = "odd or even")
    private RoleOption role;

    @Option(names = "--region", description = "region file (default: ${DEFAULT-VALUE})",
            defaultValue = "/dev/shm/colossal-pingpong")
    private Path region;

    @Option(names = "--count", description = "round trips (default: ${DEFAULT-VALUE})", defaultValue = "1000000")
    private int count;

    /** Creates the command; picocli calls this. */
    public PingPongCommand() {}

    @Override
    public Integer call() {
        if (count < 1) {
            return Failures.report("pingpong", "--count=" + count + " must be at least 1");
        }
        // The first tenth (at most 100,000) is warm-up: the JIT and the other process starting.
        long skip = Math.min(count / 10, 100_000);
        Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        long[] seen = {0};
        SharedRegion opened;
        try {
            opened = PingPong.openRegion(region);
        } catch (IpcException e) {
            // The region's message names the file and what to do: a missing directory, another kind of region.
            return Failures.report("pingpong", e.getMessage() + " (--region " + region + ")");
        }
        try (SharedRegion shared = opened) {
            System.err.println("pingpong: role " + role + " on " + region + ", waiting for the other role...");
            PingPong.play(shared, role == RoleOption.odd ? PingPong.Role.ODD : PingPong.Role.EVEN, count, rtt -> {
                if (seen[0]++ >= skip) {
                    histogram.recordValue(rtt);
                }
            });
        } catch (IllegalStateException e) {
            // A third process on the region: the session is spoilt, not the input.
            System.err.println("colossal pingpong: " + e.getMessage());
            return 1;
        }
        System.out.println(summary(role.name(), count, histogram));
        return 0;
    }

    static String summary(String role, int rounds, Histogram h) {
        return String.format(Locale.ROOT,
                "role=%s rounds=%d samples=%d mean=%.1fns p50=%dns p90=%dns p99=%dns p99.9=%dns max=%dns",
                role, rounds, h.getTotalCount(), h.getMean(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }
}
