package dev.colossal.array;

import dev.colossal.memory.ChunkPool;
import dev.colossal.memory.MappedArena;
import dev.colossal.memory.SparseFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The memory behind a big array: power-of-two chunks (pool chunks, whole sparse files, or one
 * segment) and what to do when the array is released.
 *
 * @param chunks       the chunks, each {@code 1 << chunkShift} bytes except possibly the last
 * @param chunkShift   log2 of the chunk size in bytes; 62 for a single contiguous segment
 * @param region       one segment holding every chunk, or null if they are spread over several
 * @param chunkOffsets with a region: where each chunk starts in it
 * @param onRelease    returns the memory (to the pool, or by closing a private mapping)
 * @param sparse       the sparse files the chunks map, else null: they explain a write that faulted
 * @param owner        what the memory belongs to (a pool, an arena), else null: named when it was
 *                     closed while the array still used the memory
 */
record Storage(MemorySegment[] chunks, int chunkShift, MemorySegment region, long[] chunkOffsets,
               Runnable onRelease, SparseFiles sparse, Object owner) {

    Storage(MemorySegment[] chunks, int chunkShift, Runnable onRelease, Object owner) {
        this(chunks, chunkShift, null, null, onRelease, null, owner);
    }

    /** A single segment is one "chunk" so large that every valid index falls into it. */
    static final int SINGLE_CHUNK_SHIFT = 62;

    static long checkLength(long length, int elementShift) {
        if (length < 0 || length > (Long.MAX_VALUE >>> elementShift)) {
            throw new IllegalArgumentException("length=" + length + " must be between 0 and "
                    + (Long.MAX_VALUE >>> elementShift));
        }
        return length << elementShift;
    }

    /** Chunks from a pool, zeroed or as their last owner left them; released back to the pool. */
    static Storage segmented(ChunkPool pool, long length, int elementShift, boolean zeroed) {
        long bytes = checkLength(length, elementShift);
        long chunkSize = pool.chunkSize();
        long count = (bytes + chunkSize - 1) / chunkSize;
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("length=" + length + " needs " + count
                    + " chunks; use a pool with a larger chunkSize");
        }
        int[] ids = new int[(int) count];
        MemorySegment[] chunks = new MemorySegment[(int) count];
        long[] offsets = new long[(int) count];
        MemorySegment region = null;
        boolean oneRegion = true;
        int taken = 0;
        try {
            for (; taken < count; taken++) {
                int id = zeroed ? pool.acquireZeroed() : pool.acquire();
                ids[taken] = id;
                chunks[taken] = pool.segment(id);
                offsets[taken] = pool.regionOffset(id);
                MemorySegment r = pool.region(id);
                oneRegion &= region == null || region == r;
                region = r;
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < taken; i++) {
                pool.release(ids[i]);
            }
            throw e;
        }
        return new Storage(chunks, Long.numberOfTrailingZeros(chunkSize), oneRegion ? region : null,
                oneRegion ? offsets : null, () -> {
            for (int id : ids) {
                pool.release(id);
            }
        }, null, pool);
    }

    /**
     * @param bytes the array's size in bytes
     * @return the chunks as one slice of the region if they lie there back to back in order, else null
     */
    MemorySegment run(long bytes) {
        if (region == null || chunkOffsets.length == 0) {
            return null;
        }
        long first = chunkOffsets[0];
        for (int i = 1; i < chunkOffsets.length; i++) {
            if (chunkOffsets[i] != first + ((long) i << chunkShift)) {
                return null;
            }
        }
        return region.asSlice(first, bytes);
    }

    /** One segment from the caller's arena; the caller's arena decides its lifetime. */
    static Storage contiguous(Arena arena, long length, int elementShift) {
        long bytes = checkLength(length, elementShift);
        return new Storage(new MemorySegment[] {arena.allocate(bytes, 1L << elementShift)}, SINGLE_CHUNK_SHIFT,
                () -> { }, arena);
    }

    /** One segment in a private temporary {@link MappedArena}, unmapped and deleted on release. */
    static Storage contiguousMapped(long length, int elementShift) {
        long bytes = checkLength(length, elementShift);
        MappedArena arena = MappedArena.ofTemp();
        try {
            return new Storage(new MemorySegment[] {arena.allocate(bytes, 1L << elementShift)}, SINGLE_CHUNK_SHIFT,
                    arena::close, arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Several sparse files, one chunk each, deleted on release. */
    static Storage sparse(Path directory, long length, int elementShift, long maxFileBytes) {
        long bytes = checkLength(length, elementShift);
        if (maxFileBytes < (1L << elementShift)) {
            throw new IllegalArgumentException("maxFileBytes=" + maxFileBytes + " is smaller than one element");
        }
        SparseFiles span = SparseFiles.map(directory, Math.max(bytes, 1), maxFileBytes, false);
        return new Storage(span.segments().toArray(MemorySegment[]::new), Long.numberOfTrailingZeros(maxFileBytes),
                null, null, span::close, span, span);
    }

    /** The caller's segment as it is; releasing the array leaves the segment alone. */
    static Storage wrap(MemorySegment segment, int elementShift) {
        if ((segment.byteSize() & ((1L << elementShift) - 1)) != 0) {
            throw new IllegalArgumentException("segment of byteSize=" + segment.byteSize()
                    + " is not a whole number of " + (1 << elementShift) + "-byte elements");
        }
        return new Storage(new MemorySegment[] {segment}, SINGLE_CHUNK_SHIFT, () -> { }, null);
    }

    /**
     * What an array says when its memory was unmapped under it: what closed it and what to do. For
     * a message only, so it may take its time.
     */
    static String closedOwner(Object owner) {
        return switch (owner) {
            case ChunkPool pool -> "the chunk pool it came from (chunkSize=" + pool.chunkSize() + ", backing="
                    + pool.backing() + ") was closed, directly or by closing the SwapSpace that owns it; release"
                    + " arrays before closing their pool";
            case MappedArena arena -> "its MappedArena in " + arena.directory() + " was closed; release arrays"
                    + " before closing their arena";
            case null, default -> "the arena that holds its memory was closed; release arrays before closing"
                    + " their arena";
        };
    }
}
