/**
 * Shared memory between processes: named regions, atomics, ping-pong, ring buffers, a broadcast
 * ring and a shared chunk pool, on the FFM API of JDK 25 with no flags.
 *
 * <h2>Regions</h2>
 * A {@link dev.colossal.ipc.SharedRegion} is a file mapped by every process that opens it:
 * under {@code /dev/shm} (memory only, gone at reboot) by default, or any file when the contents
 * should persist. Its first 128 bytes are a header (magic, version, kind, size) so that opening a
 * file of another kind or version is an error that says so, instead of silent corruption.
 *
 * <h2>Memory order: the one rule</h2>
 * Every shared access names its memory order in its method name:
 * <ul>
 *   <li><b>plain</b> ({@code getLong}, {@code setLong}): no ordering; only for data that another
 *       process reads after an acquire that pairs with a later release.</li>
 *   <li><b>opaque</b> ({@code getLongOpaque}, {@code setLongOpaque}): the access happens, whole and
 *       eventually visible, but orders nothing else. Good for counters and heartbeats that are
 *       read for progress only.</li>
 *   <li><b>release / acquire</b> ({@code setLongRelease}, {@code getLongAcquire}): a release store
 *       publishes every write made before it; an acquire load that sees that store also sees all
 *       of those writes. <b>Pair every release store with an acquire load of the same location</b>;
 *       this is how messages are published in the rings: the payload is written plainly, then its
 *       length with release; the reader loads the length with acquire (or plainly, followed by
 *       an acquire fence, for the rest of a batch), then the payload.</li>
 *   <li><b>volatile</b> ({@code getLongVolatile}, {@code setLongVolatile}): release/acquire plus one
 *       total order over all volatile accesses; needed only when two processes each write one
 *       location and then read the other's (Dekker-style handshakes).</li>
 *   <li><b>atomic read-modify-write</b> ({@code compareAndSetLong}, {@code getAndAddLong}): volatile
 *       semantics, one indivisible step even between processes.</li>
 * </ul>
 * All atomic access needs the offset naturally aligned (a multiple of 4 for int, 8 for long);
 * a misaligned offset is rejected with an {@link java.lang.IllegalArgumentException} naming it.
 * The ordering holds between processes because all of them map the same physical pages; the C
 * program in {@code colossal-bench/src/main/c} uses the C11 equivalents
 * ({@code memory_order_release} and so on) on the same layout.
 *
 * <h2>Messaging</h2>
 * {@link dev.colossal.ipc.MessageRing} is a ring of variable-length records, one-to-one or
 * many-to-one, in a region; {@link dev.colossal.ipc.BroadcastTransmitter} and
 * {@link dev.colossal.ipc.BroadcastReceiver} share one writer's records with any number of readers;
 * {@link dev.colossal.ipc.SharedChunkPool} hands out fixed-size chunks of one file to many
 * processes and takes back the chunks of a process that died.
 */
package dev.colossal.ipc;
