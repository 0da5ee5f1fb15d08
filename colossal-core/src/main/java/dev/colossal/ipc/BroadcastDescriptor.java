package dev.colossal.ipc;

/**
 * Payload layout of a {@link RegionKind#BROADCAST} region: one transmitter, any number of
 * receivers, records as in {@code RecordDescriptor}.
 *
 * <pre>
 *   0         +--------------------------------------+
 *             | capacity (long), written at creation |
 *   128       +--------------------------------------+
 *             | tail intent (long)                   |  transmitter: release + store-store fence,
 *   256       +--------------------------------------+  before it overwrites any data
 *             | tail (long)                          |  transmitter: release after the record
 *   384       +--------------------------------------+
 *             | latest (long)                        |  position of the newest record
 *   512       +--------------------------------------+
 *             | data: capacity bytes of records      |
 *             +--------------------------------------+
 * </pre>
 *
 * A receiver at position {@code p} has been lapped when {@code tailIntent > p + capacity}: the
 * transmitter may be overwriting its record. It checks this after copying a message (with an
 * acquire fence between the copy and the check) and jumps to {@code latest} when lapped.
 */
final class BroadcastDescriptor {

    static final long LINE = 128;
    static final long CAPACITY_OFFSET = 0;
    static final long TAIL_INTENT_OFFSET = CAPACITY_OFFSET + LINE;
    static final long TAIL_OFFSET = TAIL_INTENT_OFFSET + LINE;
    static final long LATEST_OFFSET = TAIL_OFFSET + LINE;
    static final long DATA_OFFSET = LATEST_OFFSET + LINE;

    private BroadcastDescriptor() {}

    static SharedRegion open(java.nio.file.Path path, int capacity) {
        return RingDescriptor.open(path, RegionKind.BROADCAST, capacity, DATA_OFFSET);
    }
}
