package dev.colossal.ipc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/** The other process in multi-process tests: {@code IpcChild ACTION ARGS...}. */
public final class IpcChild {

    private IpcChild() {}

    /**
     * Runs one action.
     *
     * @param args the action and its arguments
     * @throws Exception if it fails (the exit status is then non-zero)
     */
    public static void main(String[] args) throws Exception {
        Path path = Path.of(args[1]);
        switch (args[0]) {
            case "add" -> add(path, Integer.parseInt(args[2]));
            case "pingpong" -> pingPong(path, PingPong.Role.valueOf(args[2]), Integer.parseInt(args[3]));
            case "produce" -> produce(path, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), false);
            case "produce-then-die" -> produce(path, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), true);
            case "transmit" -> transmit(path, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            case "hold" -> hold(path, Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            case "churn" -> churn(path, Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            default -> throw new IllegalArgumentException("action=" + args[0]);
        }
        System.out.flush();
    }

    private static void add(Path path, int times) {
        try (SharedRegion region = SharedRegion.open(path, RegionKind.RAW)) {
            for (int i = 0; i < times; i++) {
                region.getAndAddLong(0, 1);
                region.getAndAddInt(8, 1);
            }
        }
    }

    private static void pingPong(Path path, PingPong.Role role, int rounds) {
        try (SharedRegion region = PingPong.openRegion(path)) {
            long[] count = {0};
            PingPong.play(region, role, rounds, rtt -> count[0]++);
            System.out.println("rounds " + count[0]);
        }
    }

    static MessageRing ring(Path path, String kind, int capacity) {
        return kind.equals("spsc") ? MessageRing.oneToOne(path, capacity) : MessageRing.manyToOne(path, capacity);
    }

    private static void produce(Path path, String kind, int capacity, int producer, int count, boolean die)
            throws InterruptedException {
        try (MessageRing ring = ring(path, kind, capacity); Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(ring.maxMessageLength());
            System.out.println("READY");
            System.out.flush();
            for (long seq = 0; seq < count; seq++) {
                int length = Messages.length(seq, ring.maxMessageLength());
                Messages.fill(message, 0, producer, seq, length);
                while (!ring.write(producer + 1, message, 0, length)) {
                    Thread.onSpinWait();
                }
            }
            if (die) {
                long offset;
                while ((offset = ring.tryClaim(producer + 1, 64)) < 0) {
                    Thread.onSpinWait();
                }
                ring.buffer().asSlice(offset, 32).fill((byte) 0x5A);
                System.out.println("CLAIMED");
                System.out.flush();
                Thread.sleep(600_000);
            }
            System.out.println("DONE");
        }
    }

    private static void transmit(Path path, int capacity, int count) {
        try (BroadcastTransmitter tx = BroadcastTransmitter.open(path, capacity); Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(tx.maxMessageLength());
            for (long seq = 0; seq < count; seq++) {
                int length = Messages.length(seq, tx.maxMessageLength());
                Messages.fill(message, 0, 0, seq, length);
                tx.transmit(1, message, 0, length);
            }
            System.out.println("DONE");
        }
    }

    private static void hold(Path path, int chunkSize, int chunkCount, int hold) throws InterruptedException {
        SharedChunkPool pool = SharedChunkPool.open(path, chunkSize, chunkCount);
        for (int i = 0; i < hold; i++) {
            long chunk = pool.acquire();
            pool.chunk(chunk).fill((byte) 1);
        }
        System.out.println("HELD");
        System.out.flush();
        Thread.sleep(600_000);
    }

    /** Acquires, stamps, checks and releases chunks: a chunk given to two holders at once fails. */
    static void churn(Path path, int chunkSize, int chunkCount, int rounds) {
        long me = ProcessHandle.current().pid() * 1_000_003L + Thread.currentThread().threadId();
        try (SharedChunkPool pool = SharedChunkPool.open(path, chunkSize, chunkCount)) {
            churn(pool, me, rounds);
        }
        System.out.println("DONE");
    }

    static void churn(SharedChunkPool pool, long stamp, int rounds) {
        for (int i = 0; i < rounds; i++) {
            long chunk = pool.acquire();
            if (chunk < 0) {
                continue;
            }
            MemorySegment bytes = pool.chunk(chunk);
            bytes.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, stamp);
            for (int check = 0; check < 50; check++) {
                Thread.onSpinWait();
                long seen = bytes.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
                if (seen != stamp) {
                    throw new AssertionError("chunk=" + chunk + " held twice: stamp " + seen + " over " + stamp);
                }
            }
            pool.release(chunk);
        }
    }
}
