package dev.colossal.bench.arrays;

import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code ./colossal bench arrays}: big arrays against double[], ByteBuffer[] chunks and MemorySegment. */
public final class ArraysSuite implements Suite {

    @Override
    public String name() {
        return "arrays";
    }

    @Override
    public String description() {
        return "Big arrays (segmented over pool chunks, contiguous) vs double[], the seed's ByteBuffer[] chunks and one"
                + " plain MemorySegment: sequential read/write and random read at 8 M doubles and 3 G floats (past 2^31,"
                + " on tmpfs; full run only), seed 000's Mix workload, chunk acquire + release.";
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        Map<String, Jmh.Result> small = Jmh.run(ArrayAccessBench.class.getName() + ".*", quick, jvmFlags());
        Map<String, Jmh.Result> mix = Jmh.run(MixBench.class.getName() + ".*", quick, jvmFlags());
        Map<String, Jmh.Result> pool = Jmh.run(PoolBench.class.getName() + ".*", quick, jvmFlags());
        List<Row> rows = new ArrayList<>();
        String n8 = "8 M doubles";
        String run = "DoubleArray segmented (chunks in one run), ";
        String scattered = "DoubleArray segmented (chunks out of order), ";
        for (String op : List.of("seqRead", "seqWrite")) {
            String what = (op.equals("seqRead") ? "sequential read, " : "sequential write, ") + n8;
            rows.add(vs(what, "DoubleArray segmented, per-chunk loop", small, op + "SegmentedChunks", "double[]",
                    op + "Heap", 0.9));
            if (op.equals("seqWrite")) {
                rows.add(vs(what, "DoubleArray segmented, per-chunk loop, tmpfs pool", small,
                        "seqWriteSegmentedChunksTmpfs", "double[]", "seqWriteHeap", 0.9));
            }
            rows.add(vs(what, run + "get/set(i)", small, op + "Segmented", "double[]", op + "Heap", 0.9));
            rows.add(vs(what, scattered + "get/set(i)", small, op + "Scattered", "double[]", op + "Heap", 0.9));
            rows.add(vs(what, "DoubleArray contiguous, get/set(i)", small, op + "Contiguous", "double[]", op + "Heap", 0.9));
            rows.add(vs(what, scattered + "get/set(i)", small, op + "Scattered", "ByteBuffer[] chunks",
                    op + "Buffers", null));
            rows.add(vs(what, "DoubleArray contiguous, get/set(i)", small, op + "Contiguous", "one MemorySegment",
                    op + "Segment", null));
        }
        String rr = "random read, " + n8;
        rows.add(vs(rr, run + "get(i)", small, "randomReadSegmented", "double[]", "randomReadHeap", 0.8));
        rows.add(vs(rr, scattered + "get(i)", small, "randomReadScattered", "double[]", "randomReadHeap", 0.8));
        rows.add(vs(rr, "floor of chunks out of order: region + offset table, hand-written", small,
                "randomReadOffsetsFloor", "double[]", "randomReadHeap", null));
        rows.add(vs(rr, "DoubleArray contiguous, get(i)", small, "randomReadContiguous", "double[]", "randomReadHeap", 0.8));
        rows.add(vs(rr, scattered + "get(i)", small, "randomReadScattered", "ByteBuffer[] chunks",
                "randomReadBuffers", null));
        rows.add(vs(rr, "DoubleArray contiguous, get(i)", small, "randomReadContiguous", "one MemorySegment",
                "randomReadSegment", null));
        if (!quick) {
            Map<String, Jmh.Result> big = Jmh.run(BigAccessBench.class.getName() + ".*", false, jvmFlags());
            String g3 = "3 G floats (12 GiB, tmpfs)";
            for (String op : List.of("seqRead", "seqWrite")) {
                String what = (op.equals("seqRead") ? "sequential read, " : "sequential write, ") + g3;
                rows.add(vs(what, "FloatArray segmented, per-chunk loop", big, op + "SegmentedChunks",
                        "one MemorySegment", op + "Segment", null));
                rows.add(vs(what, "FloatArray segmented (chunks in one run), get/set(i)", big, op + "Segmented", "one MemorySegment",
                        op + "Segment", null));
                rows.add(vs(what, "FloatArray segmented (chunks in one run), get/set(i)", big, op + "Segmented", "ByteBuffer[] chunks",
                        op + "Buffers", null));
                rows.add(vs(what, "FloatArray contiguous, get/set(i)", big, op + "Contiguous", "one MemorySegment",
                        op + "Segment", null));
            }
            String rb = "random read (16 M reads), " + g3;
            rows.add(vs(rb, "FloatArray segmented (chunks in one run), get(i)", big, "randomReadSegmented", "one MemorySegment",
                    "randomReadSegment", null));
            rows.add(vs(rb, "FloatArray segmented (chunks in one run), get(i)", big, "randomReadSegmented", "ByteBuffer[] chunks",
                    "randomReadBuffers", null));
            rows.add(vs(rb, "FloatArray contiguous, get(i)", big, "randomReadContiguous", "one MemorySegment",
                    "randomReadSegment", null));
        }
        String m = "Mix: two 192 k-sample signals into a new one (mixes/s)";
        rows.add(vs(m, "DoubleArray segmented, pool-recycled", mix, "mixSegmented", "double[]", "mixHeap", 0.9));
        rows.add(vs(m, "DoubleArray segmented, pool-recycled", mix, "mixSegmented", "ByteBuffer[] chunks (seed)",
                "mixBuffers", 3.0));
        rows.add(Row.absolute("chunk acquire + release, one thread", "ChunkPool (1 MiB chunks)",
                find(pool, "acquireRelease"), false, 50.0));
        writeVectorization();
        return rows;
    }

    /** The profile behind the sequential-write ratios: which loops C2 vectorized. */
    private static void writeVectorization() throws Exception {
        String table = VectorProbe.report();
        Path file = Path.of("bench", "results", "arrays-vectorization.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "# Which arrays-benchmark loops C2 vectorized\n\n"
                + "- command: `./colossal bench arrays` (any mode), class `" + VectorProbe.class.getName() + "`\n"
                + "- date: " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\n"
                + "- JDK: " + Runtime.version() + "\n"
                + "- how: the benchmark's own loop methods, compiled by C2 in a child JVM"
                + " (-XX:-TieredCompilation -XX:CompileCommand=print), disassembled with objdump\n\n"
                + table);
        System.out.println(table);
    }

    private static Row vs(String what, String ours, Map<String, Jmh.Result> results, String oursMethod, String peer,
                          String peerMethod, Double target) {
        return Row.versus(what, ours, find(results, oursMethod), peer, find(results, peerMethod), true, target);
    }

    static Jmh.Result find(Map<String, Jmh.Result> results, String method) {
        for (var e : results.entrySet()) {
            if (e.getKey().equals(method) || e.getKey().startsWith(method + "[")) {
                return e.getValue();
            }
        }
        throw new IllegalStateException("no result for benchmark " + method + " in " + results.keySet());
    }
}
