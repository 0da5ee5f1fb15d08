package dev.colossal.swap;

import dev.colossal.array.BigArray;
import dev.colossal.array.ByteArray;
import dev.colossal.array.DoubleArray;
import dev.colossal.array.FloatArray;
import dev.colossal.array.IntArray;
import dev.colossal.array.LongArray;
import dev.colossal.memory.ChunkPool;
import java.util.function.BiFunction;

/** What a block holds, as recorded in the catalog: an array type (rebuilt from the pool) or an encoded object. */
enum Kind {
    DOUBLES(1, DoubleArray.class, 8, DoubleArray::segmented),
    FLOATS(2, FloatArray.class, 4, FloatArray::segmented),
    LONGS(3, LongArray.class, 8, LongArray::segmented),
    INTS(4, IntArray.class, 4, IntArray::segmented),
    BYTES(5, ByteArray.class, 1, ByteArray::segmented),
    OBJECT(6, null, 1, null);

    final int tag;
    final Class<? extends BigArray> type;
    final int elementSize;
    private final BiFunction<ChunkPool, Long, ? extends BigArray> factory;

    Kind(int tag, Class<? extends BigArray> type, int elementSize, BiFunction<ChunkPool, Long, ? extends BigArray> factory) {
        this.tag = tag;
        this.type = type;
        this.elementSize = elementSize;
        this.factory = factory;
    }

    BigArray allocate(ChunkPool pool, long byteLength) {
        return factory.apply(pool, byteLength / elementSize);
    }

    static Kind of(Class<?> arrayType) {
        for (Kind k : values()) {
            if (k.type == arrayType) {
                return k;
            }
        }
        throw new IllegalArgumentException("type=" + arrayType.getName() + " is not a big array type;"
                + " use DoubleArray, FloatArray, LongArray, IntArray or ByteArray");
    }

    static Kind ofTag(int tag) {
        for (Kind k : values()) {
            if (k.tag == tag) {
                return k;
            }
        }
        throw new IllegalArgumentException("kind=" + tag + " is not a known swap block kind");
    }
}
