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
    DOUBLES(1, DoubleArray.class, 8, DoubleArray::segmented, DoubleArray::segmentedUninitialized),
    FLOATS(2, FloatArray.class, 4, FloatArray::segmented, FloatArray::segmentedUninitialized),
    LONGS(3, LongArray.class, 8, LongArray::segmented, LongArray::segmentedUninitialized),
    INTS(4, IntArray.class, 4, IntArray::segmented, IntArray::segmentedUninitialized),
    BYTES(5, ByteArray.class, 1, ByteArray::segmented, ByteArray::segmentedUninitialized),
    OBJECT(6, null, 1, null, null);

    final int tag;
    final Class<? extends BigArray> type;
    final int elementSize;
    private final BiFunction<ChunkPool, Long, ? extends BigArray> factory;
    private final BiFunction<ChunkPool, Long, ? extends BigArray> unzeroedFactory;

    Kind(int tag, Class<? extends BigArray> type, int elementSize, BiFunction<ChunkPool, Long, ? extends BigArray> factory,
         BiFunction<ChunkPool, Long, ? extends BigArray> unzeroedFactory) {
        this.tag = tag;
        this.type = type;
        this.elementSize = elementSize;
        this.factory = factory;
        this.unzeroedFactory = unzeroedFactory;
    }

    /** A new, zeroed array for the caller. */
    BigArray allocate(ChunkPool pool, long byteLength) {
        return factory.apply(pool, byteLength / elementSize);
    }

    /** An array about to be filled entirely from the swap file: clearing it first would be wasted work. */
    BigArray allocateForRead(ChunkPool pool, long byteLength) {
        return unzeroedFactory.apply(pool, byteLength / elementSize);
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
