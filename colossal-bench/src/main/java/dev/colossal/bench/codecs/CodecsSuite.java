package dev.colossal.bench.codecs;

import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code ./colossal bench codecs}: Colossal's generated codecs and structs against JDK
 * serialization, Kryo 5 and Apache Fory, on the seed's price update and on MediaContent.
 */
public final class CodecsSuite implements Suite {

    /** Creates the suite. */
    public CodecsSuite() {}

    @Override
    public String name() {
        return "codecs";
    }

    @Override
    public String description() {
        return "codec and struct encode/decode/round trip vs JDK serialization, Kryo 5, Apache Fory";
    }

    /**
     * Fory reaches into the JDK (and falls back to Unsafe); Kryo uses Unsafe. Ours needs none of these.
     * A fixed, pre-touched heap for every case alike: no growing heap whose fresh pages the kernel
     * zeroes while an allocating case is measured (what made a decode's CPU time jump 2.7x in a round).
     */
    @Override
    public List<String> jvmFlags() {
        // Fory's mode spelled out so that the results record it (CodecsBench#FORY_COMPATIBLE says why)
        return List.of("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch", "-Dfory.compatible=false",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow");
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        Map<String, Jmh.Result> r = Jmh.run("dev\\.colossal\\.bench\\.codecs\\.(CodecsBench|StructBench)\\..*",
                quick, jvmFlags());
        List<Row> rows = new ArrayList<>();
        for (String shape : List.of("price", "media")) {
            String what = shape.equals("price") ? "price update" : "MediaContent";
            for (String op : List.of("Encode", "Decode", "RoundTrip")) {
                Jmh.Result ours = r.get("colossal" + op + "[shape=" + shape + "]");
                String c = what + ", " + (op.equals("RoundTrip") ? "round trip" : op.toLowerCase());
                boolean roundTrip = op.equals("RoundTrip");
                rows.add(Row.versus(c, "Colossal codec", ours, "Apache Fory 1.6.0",
                        r.get("fory" + op + "[shape=" + shape + "]"), true, roundTrip ? 1.5 : null));
                rows.add(Row.versus(c, "Colossal codec", ours, "Kryo 5.6.2",
                        r.get("kryo" + op + "[shape=" + shape + "]"), true, null));
                rows.add(Row.versus(c, "Colossal codec", ours, "JDK serialization",
                        r.get("jdk" + op + "[shape=" + shape + "]"), true, roundTrip ? 20.0 : null));
            }
        }
        rows.add(Row.absolute("price update, struct encode (all fields into an off-heap struct array)",
                "Colossal struct", r.get("structEncode"), true, 100e6));
        rows.add(Row.absolute("price update, struct decode (all fields but the symbol)",
                "Colossal struct", r.get("structDecode"), true, null));
        rows.add(Row.versus("price update, encode: struct vs Fory", "Colossal struct", r.get("structEncode"),
                "Apache Fory 1.6.0", r.get("foryEncode[shape=price]"), true, null));
        return rows;
    }
}
