package dev.colossal.map;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * Summarises a map file without changing it: layout, fill, space use and a histogram of value
 * sizes. What {@code colossal inspect} prints. Segments are read one at a time under their lock.
 */
public final class MapInspector {

    private MapInspector() {
    }

    /**
     * What a map file holds.
     *
     * @param file           the map file
     * @param formatVersion  the file's format version
     * @param created        when the file was created
     * @param segments       number of segments
     * @param blockSize      heap block size in bytes
     * @param checksums      whether entries carry checksums
     * @param fileBytes      size of the file
     * @param allocatedBytes bytes handed out to tables and heaps (the rest is written-ahead zeros)
     * @param entries        live entries
     * @param tombstones     deleted slots not yet reused
     * @param tableSlots     slots of all tables
     * @param heapBytes      bytes of all heap chunks, less their headers
     * @param usedBytes      heap bytes used by entries
     * @param freeBytes      heap bytes on free lists or in bump regions
     * @param spareBytes     bytes of the spare extents: chunks segments gave back whole, for any
     *                       segment to take before the file grows
     * @param keyBytes       sum of key lengths
     * @param valueBytes     sum of value lengths
     * @param entryBytes     bytes of the live entries without padding: keys, values, headers, expiry times
     * @param chunkHeaderBytes bytes of the heap chunks' headers
     * @param repairs        segment repairs after a dead owner's lock was taken over, over the file's life
     * @param valueSizes     entries by value length: bucket b counts lengths of bit length b
     * @param maxEntries     the entry bound per segment, 0 for none
     * @param maxBytes       the byte bound per segment, 0 for none
     */
    public record Summary(Path file, int formatVersion, Instant created, int segments, int blockSize,
            boolean checksums, long maxEntries, long maxBytes, long fileBytes, long allocatedBytes,
            long entries, long tombstones, long tableSlots, long heapBytes, long usedBytes, long freeBytes,
            long spareBytes, long keyBytes, long valueBytes, long entryBytes, long chunkHeaderBytes, long repairs, long[] valueSizes) {

        /**
         * Copies the histogram.
         *
         * @param file           the map file
         * @param formatVersion  the file's format version
         * @param created        when the file was created
         * @param segments       number of segments
         * @param blockSize      heap block size in bytes
         * @param checksums      whether entries carry checksums
         * @param maxEntries     the entry bound per segment, 0 for none
         * @param maxBytes       the byte bound per segment, 0 for none
         * @param fileBytes      size of the file
         * @param allocatedBytes bytes handed out to tables and heaps
         * @param entries        live entries
         * @param tombstones     deleted slots not yet reused
         * @param tableSlots     slots of all tables
         * @param heapBytes      bytes of all heap chunks, less their headers
         * @param usedBytes      heap bytes used by entries
         * @param freeBytes      heap bytes free
         * @param spareBytes     bytes of the spare extents
         * @param keyBytes       sum of key lengths
         * @param valueBytes     sum of value lengths
         * @param entryBytes     bytes of the live entries without padding
         * @param chunkHeaderBytes bytes of the heap chunks' headers
         * @param repairs        segment repairs over the file's life
         * @param valueSizes     entries by value length
         */
        public Summary {
            valueSizes = valueSizes.clone();
        }

        /**
         * Returns the histogram of value sizes.
         *
         * @return a copy: bucket b counts values whose length has bit length b
         */
        @Override
        public long[] valueSizes() {
            return valueSizes.clone();
        }

        /**
         * Returns the file's bytes per byte of keys and values.
         *
         * @return {@code fileBytes / (keyBytes + valueBytes)}, or 0 for an empty map
         */
        public double overhead() {
            long payload = keyBytes + valueBytes;
            return payload == 0 ? 0 : (double) fileBytes / payload;
        }

        /**
         * Formats the summary for people.
         *
         * @return several lines of text
         */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            sb.append("file        ").append(file).append('\n');
            sb.append("format      version ").append(formatVersion).append(", created ").append(created).append('\n');
            sb.append("layout      ").append(segments).append(" segments, ").append(blockSize).append("-byte blocks, checksums ")
                    .append(checksums ? "on" : "off")
                    .append(maxEntries == 0 && maxBytes == 0 ? "" : ", bounded per segment to " + maxEntries
                            + " entries / " + maxBytes + " bytes").append('\n');
            sb.append("entries     ").append(entries).append(" (").append(tombstones).append(" tombstones, ")
                    .append(tableSlots).append(" slots, load ")
                    .append(tableSlots == 0 ? "0" : String.format("%.2f", (double) (entries + tombstones) / tableSlots)).append(")\n");
            sb.append("file        ").append(mib(fileBytes)).append(" (allocated ").append(mib(allocatedBytes)).append(")\n");
            sb.append("heap        ").append(mib(heapBytes)).append(": used ").append(mib(usedBytes)).append(", free ")
                    .append(mib(freeBytes)).append('\n');
            sb.append("spare       ").append(mib(spareBytes)).append(" (whole chunks given back, for any segment)\n");
            sb.append("payload     keys ").append(mib(keyBytes)).append(", values ").append(mib(valueBytes))
                    .append(String.format(", file/payload %.2f%n", overhead()));
            sb.append("repairs     ").append(repairs).append('\n');
            appendBreakdown(sb);
            sb.append("value sizes\n");
            for (int b = 0; b < valueSizes.length; b++) {
                if (valueSizes[b] > 0) {
                    long lo = b == 0 ? 0 : 1L << (b - 1);
                    long hi = b == 0 ? 0 : (1L << b) - 1;
                    sb.append(String.format("  %10d .. %-10d %d%n", lo, hi, valueSizes[b]));
                }
            }
            return sb.toString();
        }

        /** Every byte of the file, per entry: what the file costs over its keys and values, and why. */
        private void appendBreakdown(StringBuilder sb) {
            long payload = keyBytes + valueBytes;
            long tables = SlotLayout.tableBytes(tableSlots);
            long directory = FileHeaderLayout.directoryEnd(segments);
            long other = allocatedBytes - directory - tables - heapBytes - chunkHeaderBytes - spareBytes;
            sb.append("bytes                        MiB   per entry\n");
            breakdownLine(sb, "keys and values", payload, "");
            breakdownLine(sb, "entry headers", entryBytes - payload, "checksum, meta, lengths, expiry times");
            breakdownLine(sb, "padding to blocks", usedBytes - entryBytes, "");
            breakdownLine(sb, "table slots", tables, "8 bytes each");
            breakdownLine(sb, "free heap", freeBytes, "free runs and chunk tails, reused by puts");
            breakdownLine(sb, "spare extents", spareBytes, "chunks given back whole, taken by any segment before the file grows");
            breakdownLine(sb, "chunk headers", chunkHeaderBytes, "");
            breakdownLine(sb, "header, directory", directory, "");
            breakdownLine(sb, "other allocated", other, "leaked by crashes or outgrown tables not yet heap");
            breakdownLine(sb, "written ahead", fileBytes - allocatedBytes, "zeros past the allocated end, for growth");
            breakdownLine(sb, "file", fileBytes, payload == 0 ? ""
                    : String.format("%+.1f%% over keys and values", 100.0 * fileBytes / payload - 100));
        }

        private void breakdownLine(StringBuilder sb, String what, long bytes, String note) {
            sb.append(String.format("  %-20s %10.1f %8.1f  %s", what, bytes / 1048576.0,
                    entries == 0 ? 0.0 : (double) bytes / entries, note).stripTrailing()).append('\n');
        }

        private static String mib(long bytes) {
            return String.format("%.1f MiB", bytes / 1048576.0);
        }
    }

    /**
     * Summarises the map in {@code file}.
     *
     * @param file the map file; it is not created if absent
     * @return the summary
     * @throws MapFormatException    if the header is damaged, foreign, newer or the file truncated
     * @throws MapCorruptedException if a segment's structure is damaged (run {@link MapVerifier})
     * @throws IOException           if the file cannot be read
     */
    public static Summary inspect(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        try (BytesMap map = BytesMap.openForTools(file)) {
            long entries = 0;
            long tombstones = 0;
            long slots = 0;
            long heap = 0;
            long used = 0;
            long free = 0;
            long keys = 0;
            long values = 0;
            long entryBytes = 0;
            long chunkHeaders = 0;
            long repairs = 0;
            long[] sizes = new long[33];
            int shift = map.file.blockShift;
            for (int i = 0; i < map.segmentCount(); i++) {
                Segment s = map.segment(i);
                int segment = i;
                long[] freeBlocks = new long[1];
                SegmentScan scan = s.readConsistently(() -> {
                    SegmentScan read = SegmentScan.of(map.file, segment);
                    freeBlocks[0] = read.freeBlocks();   // its lists, read while the segment holds still
                    return read;
                });
                entries += scan.liveEntries();
                tombstones += scan.tombstones();
                slots += scan.tableSlots();
                heap += scan.heapBlocks() << shift;
                used += scan.usedBlocks() << shift;
                free += freeBlocks[0] << shift;
                keys += scan.keyBytes();
                values += scan.valueBytes();
                entryBytes += scan.entryBytes();
                chunkHeaders += scan.heapBytes() - (scan.heapBlocks() << shift);
                repairs += s.repairs();
                long[] h = scan.valueSizeHistogram();
                for (int b = 0; b < sizes.length; b++) {
                    sizes[b] += h[b];
                }
            }
            return new Summary(file, map.file.formatVersion(), Instant.ofEpochMilli(map.file.createdMillis()),
                    map.segmentCount(), 1 << shift, map.file.checksums, map.file.maxEntriesPerSegment,
                    map.file.maxBlocksPerSegment << shift, Files.size(file), map.file.allocEnd(), entries,
                    tombstones, slots, heap, used, free, map.file.spares.bytes(), keys, values, entryBytes, chunkHeaders, repairs, sizes);
        }
    }
}
