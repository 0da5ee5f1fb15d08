package dev.colossal.server;

/**
 * MEMORY USAGE's share of a key whose elements live in the database's element map (lists, streams,
 * bucketed hashes): the header under the key says little, so the element entries are sampled, as
 * Redis samples a collection's elements, and the average entry is multiplied by the entries the
 * header holds. SAMPLES 0 reads every entry.
 */
final class ElementUsage {

    /** Redis's default SAMPLES. */
    static final long DEFAULT_SAMPLES = 5;

    private ElementUsage() {}

    /**
     * @param header  a header of an element-map collection, as {@link ListCollector#held} reads it
     * @param samples entries to read per range, 0 for all
     * @return the estimated bytes of its element entries, 0 if {@code header} holds none
     */
    static long estimate(KeyValueStore store, KeyValueStore.Entry header, long samples) {
        long id = ListCollector.idOf(header);
        long[] ranges = ListCollector.held(header, id);
        ListElements elements = ranges == null ? null : store.elements(false);
        if (elements == null) {
            return 0;
        }
        long total = 0;
        for (int i = 0; i < ranges.length; i += 2) {
            total += estimate(elements, id, ranges[i], ranges[i + 1] - ranges[i], samples);
        }
        return total;
    }

    /** The {@code n} entries at positions from {@code first}: {@code samples} of them read, evenly spaced. */
    private static long estimate(ListElements elements, long id, long first, long n, long samples) {
        long read = samples == 0 || samples > n ? n : samples;
        long bytes = 0;
        for (long i = 0; i < read; i++) {
            byte[] value = elements.get(id, first + (n == read ? i : (long) ((double) i * n / read)));
            if (value != null) {   // a range may have holes: a sparse string's chunks of zeros are not stored
                bytes += KeyCommands.entryBytes(ListLayout.ELEMENT_KEY_LENGTH, value.length);
            }
        }
        return read == 0 ? 0 : (long) ((double) bytes / read * n);
    }
}
