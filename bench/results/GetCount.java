import dev.colossal.bench.map.MapBench;
/** Warms up, then runs CALLS gets (puts, deletes) of one MapBench store on the main thread: for instruction counts under callgrind (map-single-ops-count.sh). */
public class GetCount {
    public static void main(String[] a) throws Exception {
        MapBench b = new MapBench(); b.store = a[0]; b.entries = Integer.parseInt(a[1]); b.valueSize = 100; b.setUp();
        String op = a.length > 4 ? a[4] : "get";
        long sink = 0;
        int warm = Integer.parseInt(a[2]);
        for (int i = 0; i < warm; i++) sink += step(b, op);
        Thread.sleep(2000); // let compiles finish
        for (int i = 0; i < warm; i++) sink += step(b, op);
        int calls = Integer.parseInt(a[3]);
        mark(calls);
        for (int i = 0; i < calls; i++) sink += step(b, op);
        mark(-1);
        System.out.println("sink " + sink);
    }
    static int step(MapBench b, String op) { switch (op) { case "get": return b.get(); case "put": b.put(); return 0; default: b.delete(); return 0; } }
    static void mark(int n) { Thread.yield(); }
}
