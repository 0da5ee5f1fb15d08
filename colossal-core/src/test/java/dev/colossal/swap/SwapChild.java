package dev.colossal.swap;

import dev.colossal.array.LongArray;
import dev.colossal.codec.Codecs;
import dev.colossal.memory.ChunkPool;
import java.nio.file.Path;

/**
 * A child JVM for {@link PersistentSessionTest}, on a persistent swap file of the test's tiny
 * settings. {@code FILE open} opens the space and says "open"; {@code FILE change [ARRAY OBJECT]}
 * also writes new arrays through the budget, so that blocks are written and freed, after changing
 * what it can of what the earlier sessions left (rewrites array ARRAY and swaps it out, closes
 * object OBJECT), and says "changed". Either way it then waits to be killed; {@code FILE try} says "open" or "refused: "
 * and the message, and exits.
 */
public final class SwapChild {

    private SwapChild() {}

    public static void main(String[] args) throws InterruptedException {
        ChunkPool pool = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(4096).slabSize(1 << 20).build();
        SwapSpace space;
        try {
            space = PersistentSessionTest.tiny(pool, Path.of(args[0])).build();
        } catch (SwapException e) {
            System.out.println("refused: " + e.getMessage());
            return;
        }
        System.out.println("open");
        if (args[1].equals("try")) {
            space.close();
            return;
        }
        if (args[1].equals("change")) {
            if (args.length > 2) {
                SwappableArray<LongArray> old = space.array(Long.parseLong(args[2]), LongArray.class);
                try (LongArray a = old.acquire()) {
                    a.fill(-1);
                }
                old.swapOut(); // its new contents in a new block
                space.object(Long.parseLong(args[3]), Codecs.string()).close(); // its block is free in this session
            }
            for (int i = 0; i < 8; i++) { // 8 x 24 KB through a 32 KB budget: blocks are written and freed
                SwappableArray<LongArray> fresh = space.allocate(LongArray.class, 3000);
                try (LongArray a = fresh.acquire()) {
                    a.fill(7_000 + i);
                }
                fresh.swapOut();
            }
            space.store("written by the killed session", Codecs.string()).swapOut();
            System.out.println("changed");
        }
        System.out.flush();
        Thread.sleep(120_000);
    }
}
