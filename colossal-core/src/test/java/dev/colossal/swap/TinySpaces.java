package dev.colossal.swap;

import dev.colossal.array.LongArray;
import dev.colossal.memory.ChunkPool;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Tests on small spaces: 4 KiB chunks, 64-byte blocks, so that a few kilobytes make many evictions. */
abstract class TinySpaces {

    @TempDir
    Path dir;

    final ChunkPool pool = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(4096).slabSize(1 << 20)
            .build();

    @AfterEach
    void closePool() {
        pool.close();
    }

    SwapSpace.Builder tiny(long budget) {
        return SwapSpace.builder().directory(dir).budget(budget).alignment(64).ioSize(8192).pool(pool);
    }

    /** Checks an array against its model element by element. */
    static void check(LongArray array, long[] model, String what) {
        if (array.length() != model.length) {
            throw new AssertionError(what + ": length " + array.length() + ", expected " + model.length);
        }
        for (int i = 0; i < model.length; i++) {
            if (array.get(i) != model[i]) {
                throw new AssertionError(what + ": element " + i + " is " + array.get(i) + ", expected " + model[i]);
            }
        }
    }
}
