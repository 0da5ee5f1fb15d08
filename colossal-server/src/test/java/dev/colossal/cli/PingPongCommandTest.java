package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colossal.ipc.PingPong;
import dev.colossal.ipc.SharedRegion;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PingPongCommandTest {

    @TempDir
    Path dir;

    @Test
    void bothRolesCompleteEveryRoundAndExitZero() throws Exception {
        Path region = dir.resolve("pp");
        String[] common = {"--region", region.toString(), "--count", "5000"};
        AtomicInteger evenStatus = new AtomicInteger(-1);
        Thread even = Thread.ofPlatform().start(() -> evenStatus.set(run("even", common)));
        assertEquals(0, run("odd", common));
        even.join();
        assertEquals(0, evenStatus.get());
        try (SharedRegion shared = PingPong.openRegion(region)) {
            assertEquals(10_000, shared.getLongVolatile(0), "every round trip happened");
        }
    }

    @Test
    void aCountBelowOneIsRefused() {
        assertEquals(2, run("odd", new String[] {"--region", dir.resolve("x").toString(), "--count", "0"}));
    }

    @Test
    void aRegionOfAnotherKindIsAClearErrorNotAStackTrace() {
        Path other = dir.resolve("raw");
        SharedRegion.create(other, dev.colossal.ipc.RegionKind.RAW, 128).close();
        assertEquals(2, run("odd", new String[] {"--region", other.toString(), "--count", "10"}),
                "input the command cannot use: status 2, as every command has it");
    }

    private static int run(String role, String[] common) {
        String[] args = new String[common.length + 3];
        args[0] = "pingpong";
        args[1] = "--role";
        args[2] = role;
        System.arraycopy(common, 0, args, 3, common.length);
        return new CommandLine(new Main()).execute(args);
    }
}
