/**
 * A persistent, process-shared hash map in a memory-mapped file.
 *
 * <p>{@link dev.colossal.map.ColossalMap} is a {@link java.util.concurrent.ConcurrentMap} whose
 * keys and values go through {@link dev.colossal.codec.Codec}s; {@link dev.colossal.map.BytesMap}
 * is the same map on raw bytes, whose reads copy a value into a buffer of the caller's and allocate
 * nothing (a copy, not a view of the file: entries move when segments are rewritten, and the copy is
 * what a read validates against concurrent writers). Both open a file that any number of threads
 * and processes may use at once, that grows by itself, and that survives a kill -9 of any of them.
 * Their {@code openReadOnly} reads a map with read permission on the file alone, writing nothing.
 *
 * <h2>Memory order</h2>
 * Shared fields of the file are naturally aligned longs reached through accessors named by their
 * access mode: {@code getLongAcquire} pairs with {@code setLongRelease} (what was written before
 * the release store is seen by whoever sees it through the acquire load), {@code
 * compareAndSetLong} is a full fence, plain {@code getLong}/{@code setLong} are used only under a
 * segment's lock or inside a seqlock read that is validated afterwards. Publishing an entry is a
 * release store of its slot after the entry's bytes; a reader validates every optimistic read by
 * re-reading the segment's version after a load-load fence.
 *
 * <h2>Files</h2>
 * One descriptor class per binary layout holds its diagram and offsets:
 * {@code FileHeaderLayout}, {@code SegmentLayout}, {@code SlotLayout}, {@code EntryLayout},
 * {@code HeapLayout}. Files are created with mode 0600 and are little-endian.
 */
package dev.colossal.map;
