package dev.colossal.bench.arrays;

import dev.colossal.array.DoubleArray;
import dev.colossal.memory.ChunkPool;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shows which of the arrays benchmark's loops C2 turned into vector code: the profile behind the
 * sequential-write ratios. Runs the benchmark's own loop methods in a child JVM with
 * {@code -XX:CompileCommand=print}; without the hsdis plugin the JVM prints each compiled method as
 * hex bytes, which {@code objdump} disassembles. A loop is vectorized when its code uses the 256- or
 * 512-bit registers ({@code ymm}/{@code zmm}).
 *
 * <p>The finding on JDK 25 (C2): the {@code double[]} write loop converts the int index to double and
 * stores eight lanes at once, while the same loop storing into a {@code MemorySegment} stays scalar,
 * even though C2 vectorizes a segment loop that stores a constant. Nothing in the array's code can
 * change that: its per-chunk loop is already the bare scalar loop (checks hoisted, 8x unrolled).
 */
public final class VectorProbe {

    private static final int LENGTH = 1 << 16;

    /** The loops probed, as {@code Class::method} patterns for CompileCommand, and what each is. */
    private static final Map<String, String> LOOPS = new LinkedHashMap<>();

    static {
        LOOPS.put("ArrayAccessBench::seqWriteHeap", "sequential write, double[]");
        LOOPS.put("ArrayAccessBench::writeChunks", "sequential write, DoubleArray per-chunk loop");
        LOOPS.put("ArrayAccessBench::seqWriteSegment", "sequential write, one MemorySegment");
        LOOPS.put("VectorProbe::fillConstant", "constant into one MemorySegment (control)");
        LOOPS.put("ArrayAccessBench::seqReadHeap", "sequential read, double[]");
        LOOPS.put("ArrayAccessBench::seqReadSegmentedChunks", "sequential read, DoubleArray per-chunk loop");
    }

    private VectorProbe() {}

    /**
     * The child: calls every probed loop often enough that C2 compiles each one on its own.
     *
     * @param args unused
     * @throws IOException if the mapped segment cannot be set up
     */
    public static void main(String[] args) throws IOException {
        ArrayAccessBench bench = new ArrayAccessBench();
        ArrayAccessBench.Size size = new ArrayAccessBench.Size();
        size.length = LENGTH;
        ArrayAccessBench.Heap heap = new ArrayAccessBench.Heap();
        heap.setup(size);
        ArrayAccessBench.Segment segment = new ArrayAccessBench.Segment();
        segment.setup(size);
        try (ChunkPool pool = ChunkPool.builder().chunkSize(1 << 15).backing(ChunkPool.Backing.NATIVE).build()) {
            ArrayAccessBench.Segmented chunked = new ArrayAccessBench.Segmented();
            chunked.a = DoubleArray.segmented(pool, LENGTH);
            long sink = 0;
            for (int i = 0; i < 20_000; i++) {
                bench.seqWriteHeap(heap);
                ArrayAccessBench.writeChunks(chunked.a);
                bench.seqWriteSegment(segment);
                fillConstant(segment.s);
                sink += bench.seqReadHeap(heap) + bench.seqReadSegmentedChunks(chunked);
            }
            System.out.println("done " + (sink & 1));
            chunked.a.close();
        } finally {
            segment.tearDown();
        }
    }

    static MemorySegment fillConstant(MemorySegment s) {
        int n = (int) (s.byteSize() >>> 3);
        for (int i = 0; i < n; i++) {
            s.setAtIndex(ArrayAccessBench.D, i, 1.5);
        }
        return s;
    }

    /**
     * Runs the child and returns a markdown table of the vector instructions in each loop's code.
     *
     * @return the table, or a line saying why it could not be made
     * @throws Exception if the child JVM cannot be started
     */
    static String report() throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:+UnlockDiagnosticVMOptions", "-XX:-TieredCompilation", "-XX:CompileCommand=quiet"));
        for (String loop : LOOPS.keySet()) {
            command.add("-XX:CompileCommand=print,dev.colossal.bench.arrays." + loop);
        }
        command.addAll(List.of("-cp", jar(), VectorProbe.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            return "vector probe failed: " + out.lines().limit(5).toList();
        }
        StringBuilder table = new StringBuilder("| loop | method | vector instructions (ymm/zmm) | scalar double stores | vectorized |\n"
                + "|---|---|---:|---:|---|\n");
        for (Map.Entry<String, String> loop : LOOPS.entrySet()) {
            String code = disassemble(out, loop.getKey().substring(loop.getKey().indexOf("::") + 2));
            if (code == null) {
                return "vector probe: no compiled code printed for " + loop.getKey()
                        + " (needs objdump from binutils and a HotSpot JVM)";
            }
            long vector = code.lines().filter(l -> l.contains("%ymm") || l.contains("%zmm")).count();
            long scalarStores = code.lines().filter(l -> l.matches(".*vmovsd\\s+%xmm\\d+,.*\\(.*")).count();
            table.append("| ").append(loop.getValue()).append(" | `").append(loop.getKey()).append("` | ")
                    .append(vector).append(" | ").append(scalarStores).append(" | ")
                    .append(vector > 0 ? "yes" : "**no**").append(" |\n");
        }
        return table.toString();
    }

    /** The objdump listing of the last standard (not on-stack-replacement) C2 compile of a method. */
    private static String disassemble(String printed, String method) throws Exception {
        Pattern header = Pattern.compile("Compiled method \\(c2\\)[^\\n]*::" + Pattern.quote(method) + " \\(\\d+ bytes\\)");
        String last = null;
        Matcher m = header.matcher(printed);
        while (m.find()) {
            int start = printed.indexOf("[MachCode]", m.end());
            int end = printed.indexOf("[/MachCode]", start);
            if (start >= 0 && end > start) {
                last = printed.substring(start, end);
            }
        }
        if (last == null) {
            return null;
        }
        StringBuilder hex = new StringBuilder();
        Pattern bytesLine = Pattern.compile("^\\s*0x[0-9a-f]+: ([0-9a-f| ]+)$");
        for (String line : last.split("\n")) {
            Matcher b = bytesLine.matcher(line);
            if (b.matches()) {
                hex.append(b.group(1).replace("|", "").replace(" ", ""));
            }
        }
        Path bin = Files.createTempFile("vector-probe", ".bin");
        try {
            Files.write(bin, java.util.HexFormat.of().parseHex(hex));
            Process objdump = new ProcessBuilder("objdump", "-D", "-b", "binary", "-mi386:x86-64", bin.toString())
                    .redirectErrorStream(true).start();
            String listing = new String(objdump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return objdump.waitFor() == 0 ? listing : null;
        } catch (IOException e) {
            return null;
        } finally {
            Files.deleteIfExists(bin);
        }
    }

    private static String jar() throws URISyntaxException {
        return Path.of(VectorProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
