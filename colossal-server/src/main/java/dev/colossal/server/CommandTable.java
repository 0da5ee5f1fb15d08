package dev.colossal.server;

import dev.colossal.map.MapCorruptedException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Every command by name, and the dispatch rules Redis applies before running one. */
final class CommandTable {

    private final Map<String, CommandSpec> byName = new HashMap<>();
    /** Open-addressing index by lower-cased name bytes, so dispatch allocates nothing. */
    private CommandSpec[] slots = new CommandSpec[0];
    private byte[][] slotNames = new byte[0][];
    private final ServerContext ctx;
    private final StringCommands strings;
    private final CommandSpec setSpec;
    private final CommandSpec getSpec;
    private final CommandSpec execSpec;
    /** XGROUP, whose CREATE ... MKSTREAM adds a key though the container names none ({@link NewKeyEvents}). */
    private final CommandSpec xgroupSpec;
    /** CLIENT, after which a CLIENT CACHING still holds for the next command ({@link #afterRun}). */
    private final CommandSpec clientSpec;
    /** DEBUG, refused by {@code enable-debug-command} before MULTI queues it, as Redis refuses it. */
    private final CommandSpec debugSpec;
    private final ScriptCommands scripts;
    /** Counts of containers' subcommands ({@code config|get}), by that name. */
    private final java.util.concurrent.ConcurrentHashMap<String, CommandStats> subcommandStats =
            new java.util.concurrent.ConcurrentHashMap<>();

    CommandTable(ServerContext ctx) {
        this.ctx = ctx;
        this.strings = new StringCommands(ctx);
        strings.register(this);
        new BitCommands(ctx).register(this);
        new HashCommands(ctx).register(this);
        new ListCommands(ctx).register(this);
        new BlockingListCommands(ctx).register(this);
        new HyperLogLogCommands(ctx).register(this);
        new SetCommands(ctx).register(this);
        new SortedSetCommands(ctx).register(this);
        new BlockingSortedSetCommands(ctx).register(this);
        new StreamCommands(ctx).register(this);
        new BlockingStreamCommands(ctx).register(this);
        new XGroupCommand(ctx).register(this);
        new PendingCommands(ctx).register(this);
        new GroupReadCommand(ctx).register(this);
        new KeyCommands(ctx, strings).register(this);
        new SortCommand(ctx).register(this);
        new LcsCommand(ctx).register(this);
        new DatabaseCommands(ctx).register(this);
        DumpCommands dumps = new DumpCommands(ctx);
        dumps.register(this);
        new SyncCommands(ctx).register(this);
        new MigrateCommand(ctx, dumps).register(this);
        new DebugCommand(ctx, dumps).register(this);
        new AdminCommands(ctx, this).register(this);
        new CommandCommand(this).register(this);
        new MonitoringCommands(ctx).register(this);
        new Transactions(ctx, this).register(this);
        new PubSubCommands(ctx).register(this);
        this.scripts = new ScriptCommands(ctx, this);
        scripts.register(this);
        new FunctionCommands(scripts, ctx.functions).register(this);
        new AclCommands(ctx, this).register(this);
        new NoReplicationCommands().register(this);
        new ReplicaCommands(ctx, this).register(this);
        new Lolwut().register(this);
        this.setSpec = Objects.requireNonNull(byName.get("set"));
        this.getSpec = Objects.requireNonNull(byName.get("get"));
        this.execSpec = Objects.requireNonNull(byName.get("exec"));
        this.xgroupSpec = Objects.requireNonNull(byName.get("xgroup"));
        this.debugSpec = Objects.requireNonNull(byName.get("debug"));
        this.clientSpec = Objects.requireNonNull(byName.get("client"));
        ctx.replicas.table = this;
    }

    void add(String name, int arity, List<String> flags, int first, int last, int step, CommandSpec.Handler h) {
        put(new CommandSpec(name, arity, flags, first, last, step, false, h, new CommandStats()));
    }

    void addNoAuth(String name, int arity, List<String> flags, CommandSpec.Handler h) {
        put(new CommandSpec(name, arity, flags, 0, 0, 0, true, h, new CommandStats()));
    }

    private void put(CommandSpec spec) {
        byName.put(spec.name(), spec);
        writeCommands = null;
        int size = Integer.highestOneBit(Math.max(16, byName.size() * 4 - 1)) << 1;
        slots = new CommandSpec[size];
        slotNames = new byte[size][];
        for (CommandSpec s : byName.values()) {
            byte[] n = Args.bytes(s.name());
            int i = hashLower(n) & (size - 1);
            while (slots[i] != null) {
                i = (i + 1) & (size - 1);
            }
            slots[i] = s;
            slotNames[i] = n;
        }
    }

    private static int hashLower(byte[] a) {
        int h = 0;
        for (byte b : a) {
            int c = b;
            h = 31 * h + (c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        return h ^ (h >>> 16);
    }

    CommandSpec find(byte[] name) {
        int mask = slots.length - 1;
        for (int i = hashLower(name) & mask; slots[i] != null; i = (i + 1) & mask) {
            byte[] n = slotNames[i];
            if (n.length == name.length && sameIgnoringCase(n, name)) {
                return slots[i];
            }
        }
        return null;
    }

    private static boolean sameIgnoringCase(byte[] lower, byte[] any) {
        for (int i = 0; i < lower.length; i++) {
            int c = any[i];
            if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    /** The scripting commands' state, for INFO. */
    ScriptCommands scripts() {
        return scripts;
    }

    CommandSpec get(String name) {
        return byName.get(name);
    }

    Collection<CommandSpec> all() {
        return byName.values();
    }

    /**
     * Runs the request {@code p} just parsed from {@code buf}. The plain {@code GET key} and
     * {@code SET key value} of an authenticated client, most of all requests, read their arguments
     * in the buffer: GET's key goes to the map through {@code keys}, SET stores its value straight
     * from the buffer. Everything else copies its arguments out and goes through
     * {@link #execute(Client, byte[][])}. The request's bytes are consumed: a command may overwrite them.
     */
    void execute(Client c, RequestParser p, MemorySegment buf, KeyViews keys) {
        // A subscriber (c.pubsub) goes the general way: in RESP2 it may not run GET or SET at all; nor may
        // a monitor; a tracking client's GET must be remembered; nor while a replication setting may refuse them
        if (p.inBuffer() && c.authenticated && c.unrestricted() && p.lengths[0] == 3 && c.queued == null && !c.pubsub && !c.monitor
                && c.tracking == null && ctx.guards.idle() && !ctx.events.newKeysOn()) {
            CommandSpec fast = p.argc == 2 && is(buf, p.starts[0], 'g', 'e', 't') && !ctx.replica.loading ? getSpec
                    : p.argc == 3 && is(buf, p.starts[0], 's', 'e', 't') && !ctx.dbs.memoryFull()
                            && !ctx.replica.following() && !c.unordered && !ctx.replicas.active() ? setSpec : null;
            if (fast != null) {
                c.lastCommand = fast.name();
                long errors = c.reply.errorsEver;
                try {
                    ctx.access.touch(c.db, buf, p.starts[1], p.lengths[1], c.clockNanos);
                    if (fast == getSpec) {
                        strings.get(c, keys.of(buf, p.starts[1], p.lengths[1]));
                    } else {
                        c.unordered = true; // no replica or snapshot yet; the first waits for this SET to be over
                        if (ctx.replicas.active() || ctx.replicas.building()) {
                            c.unordered = false;
                            execute(c, p.args(buf));
                            return;
                        }
                        try {
                            strings.setFromBuffer(c, p, buf, keys);
                        } finally {
                            c.unordered = false;
                        }
                        ctx.waits.serveReady(true); // a blocked XREADGROUP whose stream this SET replaced ends now
                    }
                } catch (RuntimeException e) {
                    failed(c, e);
                }
                c.commands++;
                // One clock read, not two: GET and SET are timed from the end of the request before
                // them in the same read (or the read itself), so their time includes parsing them.
                // A clock read is ~24 ns here, 4% of a pipelined GET's CPU.
                long end = System.nanoTime();
                long took = end - c.clockNanos;
                c.clockNanos = end;
                if (ctx.latencyMonitor.over(took)) {
                    ctx.latencyMonitor.observe(fast == getSpec ? "fast-command" : "command", took, ctx.now());
                }
                if (fast == getSpec) {
                    c.getCalls++;
                    c.getNanos += took;
                } else {
                    c.setCalls++;
                    c.setNanos += took;
                }
                if (ctx.latency.on) {
                    if (c.fastLatency == null) {
                        c.fastLatency = new long[2 * LatencyBuckets.COUNT];
                    }
                    c.fastLatency[LatencyBuckets.bucket(took) + (fast == getSpec ? 0 : LatencyBuckets.COUNT)]++;
                }
                if (c.reply.errorsEver != errors) {
                    fast.stats().failed.increment();
                }
                if (ctx.slowLog.slow(took)) {
                    // Copied out only now: a GET or SET leaves its request's bytes as they were.
                    ctx.slowLog.observe(c, p.args(buf), took, ctx.now());
                }
                if (fast == setSpec) {
                    ctx.waits.logServed();
                }
                if (ctx.monitors.active()) {
                    ctx.monitors.feed(c, p.args(buf));
                }
                return;
            }
        }
        execute(c, p.args(buf));
    }

    /** @return whether the three bytes at {@code at} are the lower-case {@code x y z}, in any case */
    private static boolean is(MemorySegment b, int at, char x, char y, char z) {
        return (b.get(ValueLayout.JAVA_BYTE, at) | 0x20) == x && (b.get(ValueLayout.JAVA_BYTE, at + 1) | 0x20) == y
                && (b.get(ValueLayout.JAVA_BYTE, at + 2) | 0x20) == z;
    }

    /**
     * Runs one request, in Redis's order of checks: unknown command or subcommand, arity, DEBUG's
     * {@code enable-debug-command}, authentication. Like
     * Redis, counts a command once it ran (so INFO does not count itself), not a rejected one.
     */
    void execute(Client c, byte[][] args) {
        Reply r = c.reply;
        CommandSpec spec = find(args[0]);
        String name = LastCommand.of(spec, args);
        c.lastCommand = name;
        if (spec == null) {
            c.queueRefused |= c.queued != null;
            r.error(Errors.unknownCommand(args));
            return;
        }
        if (name.equals(LastCommand.NONE) && LastCommand.unknownSubcommand(spec, args)) {
            // Refused before the ACL check (so a restricted user's probe, as redis-py's CLIENT
            // MAINT_NOTIFICATIONS at connect, is not logged) and before MULTI queues it (EXECABORT)
            c.queueRefused |= c.queued != null;
            r.error(Errors.unknownSubcommand(args[1], spec.name().toUpperCase(java.util.Locale.ROOT)));
            return;
        }
        CommandStats stats = stats(spec, name);
        if (!spec.arityOk(args.length)) {
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(Errors.arity(spec.name()));
            return;
        }
        if (spec == debugSpec && !ctx.debugAccess.allows(c)) {
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(MonitoringCommands.DEBUG_NOT_ALLOWED);
            return;
        }
        if (!c.authenticated && !spec.noAuth()) {
            stats.rejected.increment();
            r.error(Errors.NOAUTH);
            return;
        }
        if (!c.unrestricted() && refused(c, spec, name, args, stats)) {
            return;
        }
        // a script's commands have their own rule (ScriptCalls), and a transaction's were looked at by EXEC;
        // a master's are obeyed, as Redis's replicas obey them, or the replica would drift from it
        if (c.scriptCaller == null && !c.inExec && !c.fromMaster && ctx.dbs.memoryFull() && OomRefusal.refused(spec, args, c.queued != null)) {
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(OomRefusal.ERROR);
            return;
        }
        boolean guarded = !c.inExec && !(c.scriptCaller != null ? c.scriptCaller : c).fromMaster;
        if (guarded && guardRefused(c, spec, stats, ctx.guards.noReplicas(ctx, spec, args, queuedIfExec(c, spec), this))) {
            return;
        }
        if (ctx.replica.following() && !c.inExec && ReplicaCommands.readOnlyRefused(c, spec, args, this)) {
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(ReplicaCommands.READONLY);
            return;
        }
        if (guarded && guardRefused(c, spec, stats, ctx.guards.masterDown(ctx, spec, args, queuedIfExec(c, spec), this))) {
            return;
        }
        if (ctx.replica.loading && !c.fromMaster && !ReplicaCommands.runsWhileLoading(name == LastCommand.NONE
                ? spec.name() : name)) {
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(ReplicaCommands.LOADING);
            return;
        }
        if (c.pubsub && r.protocol == 2 && !c.inExec && !PubSubCommands.allowedWhileSubscribed(spec.name())
                && name != LastCommand.NONE) {
            // An unknown subcommand (NONE) goes on to its container's error, as in Redis
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(PubSubCommands.notAllowed(name));
            return;
        }
        // Messages published before this command go before its reply, as redis-server writes them
        PubSubCommands.deliverWaiting(c, r);
        if (c.monitor && Monitors.refusal(spec, name) != null) {
            c.queueRefused |= c.queued != null;
            stats.rejected.increment();
            r.error(Monitors.refusal(spec, name));
            return;
        }
        if (c.queued != null && Transactions.refusedInsideMulti(spec.name())) {
            c.queueRefused = true;
            stats.rejected.increment();
            r.error(Transactions.NOT_IN_MULTI);
            return;
        }
        if (c.queued != null && !Transactions.runsInsideMulti(spec.name())) {
            c.queued.add(args);
            r.simple("QUEUED");
            return;
        }
        int caching = c.caching;
        boolean batch = ctx.tracking.active() && ctx.tracking.begin(c);
        boolean monitored = ctx.monitors.active() && name != LastCommand.NONE;
        if (monitored && Monitors.shownBefore(name)) {
            ctx.monitors.feed(c, args);
        }
        Tracking.Mode tracked = c.tracking;
        c.readsTracked = tracked != null && !tracked.bcast()
                && (tracked.optin() ? caching > 0 : !tracked.optout() || caching == 0);
        long errors = r.errorsEver;
        long accounted = c.errorsAccounted;
        // As GET and SET's: timed from the end of the command before (or the read), so one clock
        // read a command; a clock read is ~24 ns, a fifth of the path's cost around a trivial handler
        long start = c.clockKept ? c.clockNanos : System.nanoTime();
        // OBJECT names no key in its spec, so OBJECT IDLETIME looks without using, as in Redis
        ctx.access.touchKeys(spec, args, c.db, start);
        int replyStart = r.len;
        c.args = args;
        int ordered = ctx.replicas.enter(c, this, spec, args);
        try {
            if (ctx.replicas.building()) {
                ctx.replicas.beforeWrite(c, spec, args);
            }
            long changes = ctx.replicas.changes();
            // new-key events (class n) only: which declared keys are missing before the write
            Object missing = ctx.events.newKeysOn() && (spec.writes() && spec.firstKey() > 0 || spec == xgroupSpec)
                    ? NewKeyEvents.before(spec, args, c.db, n -> n < ctx.dbs.count() ? ctx.dbs.store(n) : null) : null;
            try {
                spec.handler().run(c, args, r);
            } catch (RuntimeException e) {
                // What the command wrote of its reply before it failed goes: an array header without its
                // elements (LRANGE meeting a damaged element) would put the client's replies out of step.
                r.len = replyStart;
                failed(c, e);
            }
            if (missing != null) { // the method references are made only when there is something to look at
                NewKeyEvents.after(missing, ctx.dbs::store, ctx.events::created);
            }
            if (ordered == Replicas.ORDERED && spec != execSpec) {
                ctx.replicas.record(c, spec, args, r, replyStart, changes);
            }
            afterRun(c, spec, name, args, batch, monitored);
        } finally {
            ctx.replicas.exit(c, ordered);
        }
        finish(c, spec, args, stats, errors, accounted, start);
    }

    /** What follows a command's run: monitors, tracking, and serving the clients its writes unblocked. */
    private void afterRun(Client c, CommandSpec spec, String name, byte[][] args, boolean batch, boolean monitored) {
        if (monitored && Monitors.shownAfter(name)) {
            ctx.monitors.feed(c, args);
        }
        if ((c.readsTracked || c.scriptCaller != null) && spec.readOnly()) {
            if (c.scriptCaller == null) {
                // EVAL_RO and FCALL_RO are flagged readonly, but as in Redis their keys are
                // remembered only if the script reads (below), not for running it
                if (!ScriptCommands.runsScript(args[0])) {
                    spec.forEachKey(args, k -> ctx.tracking.read(c, k));
                }
            } else if (c.scriptCaller.readsTracked && c.scriptKeys != null) {
                // as Redis: a script's read remembers the keys the script declared, for its caller
                // (whose id the script's client has), as the EVAL's mode and CLIENT CACHING decide
                for (byte[] k : c.scriptKeys) {
                    ctx.tracking.read(c, k);
                }
            }
        }
        if (batch) {
            ctx.tracking.end();
        }
        if (c.queued == null && !c.inExec && spec != clientSpec) {
            // As in Redis, CLIENT CACHING is for the next command, or for every command of the
            // transaction a MULTI right after it starts, until EXEC ends it: rueidis sends CLIENT
            // CACHING YES, MULTI, PTTL k, GET k, EXEC for each read it caches.
            c.caching = 0;
        }
        // EXEC ran its queued commands through here, each naming itself: Redis shows exec after.
        c.lastCommand = name;
        if (!c.inExec && !c.denyBlocking) {
            // clients blocked on keys this command (or the transaction or script it ran) wrote
            ctx.waits.serveReady(true);
        }
    }

    /** The counts and logs of a command that ran. */
    private void finish(Client c, CommandSpec spec, byte[][] args, CommandStats stats, long errors, long accounted,
            long start) {
        Reply r = c.reply;
        c.commands++;
        long end = System.nanoTime();
        long took = end - start;
        c.clockNanos = end;
        stats.calls.increment();
        stats.nanos.add(took);
        if (ctx.latency.on) {
            stats.latency.record(took);
        }
        if (ctx.latencyMonitor.over(took)) {
            ctx.latencyMonitor.observe(spec.fast() ? "fast-command" : "command", took, ctx.now());
        }
        // A command failed if it answered an error of its own: the errors of the commands EXEC
        // ran (each accounted for by its own call of this method) are theirs, not EXEC's.
        long all = r.errorsEver - errors;
        if (all > c.errorsAccounted - accounted) {
            stats.failed.increment();
        }
        c.errorsAccounted = accounted + all;
        // EXEC is not logged, as in Redis: each command it runs comes through here and is logged on its own.
        // A command that blocked is logged when it is served (KeyWaits), as Redis logs it when it unblocks.
        if (spec != execSpec && c.blockedBy == null && ctx.slowLog.slow(took)) {
            ctx.slowLog.observe(c, args, took, ctx.now());
        }
        ctx.waits.logServed();
    }

    /**
     * The replication settings' refusals ({@link ReplicationGuards}): as Redis, EXEC refused ends the
     * transaction with EXECABORT and the reason, a command refused while queuing dooms its EXEC.
     */
    private boolean guardRefused(Client c, CommandSpec spec, CommandStats stats, String refusal) {
        if (refusal == null) {
            return false;
        }
        stats.rejected.increment();
        if (spec == execSpec && c.queued != null) {
            c.queued = null;
            c.queueRefused = false;
            Transactions.unwatch(ctx, c);
            c.reply.error("EXECABORT Transaction discarded because of: " + refusal);
        } else {
            c.queueRefused |= c.queued != null;
            c.reply.error(refusal);
        }
        return true;
    }

    /** @return the commands an EXEC would run, or null if {@code spec} is no EXEC (or there is no MULTI) */
    private List<byte[][]> queuedIfExec(Client c, CommandSpec spec) {
        return spec == execSpec ? c.queued : null;
    }

    /** Redis's ACL check, for a user not allowed everything: refuses (and logs) what the user may not run. */
    private boolean refused(Client c, CommandSpec spec, String name, byte[][] args, CommandStats stats) {
        String full = name.equals(LastCommand.NONE) ? spec.name() : name;
        AclUsers.Denial d = ctx.acl.refusal(ctx, c, full, args, c.inExec ? "multi" : "toplevel");
        if (d == null) {
            return false;
        }
        stats.rejected.increment();
        if (spec == execSpec) { // a refused EXEC ends the transaction, as Redis's does
            c.queued = null;
            c.queueRefused = false;
            Transactions.unwatch(ctx, c);
            c.reply.error("EXECABORT Transaction discarded because of: " + d.error());
        } else if (c.inExec) {
            c.reply.error(d.changedSinceQueued());
        } else {
            c.queueRefused |= c.queued != null;
            c.reply.error(d.error());
        }
        return true;
    }

    /**
     * A blocked command of {@code c} ({@link Client#args}) was ended by an error: a failed call of
     * it, as Redis counts one, and the error in the server's totals now.
     */
    void failedWhileBlocked(Client c) {
        byte[][] args = c.args;
        CommandSpec spec = args == null ? null : find(args[0]);
        if (spec != null) {
            spec.stats().failed.increment();
        }
        publish(c);
    }

    /**
     * Adds what {@code c} counted since its last publish to the server's totals and to GET's and
     * SET's commandstats: once per batch of requests, not once per request.
     */
    void publish(Client c) {
        c.publish(ctx.stats);
        if (c.getCalls != 0) {
            getSpec.stats().calls.add(c.getCalls);
            getSpec.stats().nanos.add(c.getNanos);
            c.getCalls = 0;
            c.getNanos = 0;
        }
        if (c.setCalls != 0) {
            setSpec.stats().calls.add(c.setCalls);
            setSpec.stats().nanos.add(c.setNanos);
            c.setCalls = 0;
            c.setNanos = 0;
        }
        long[] fast = c.fastLatency;
        if (fast != null) {
            for (int i = 0; i < fast.length; i++) {
                if (fast[i] != 0) {
                    (i < LatencyBuckets.COUNT ? getSpec : setSpec).stats().latency.add(i % LatencyBuckets.COUNT, fast[i]);
                    fast[i] = 0;
                }
            }
        }
    }

    /**
     * The counts a call is added to: its command's, or for a container's subcommand Redis knows
     * ({@link LastCommand}: {@code config|get}) that subcommand's, as Redis counts them. The names
     * come from a fixed list, so clients cannot grow the map.
     */
    private CommandStats stats(CommandSpec spec, String name) {
        // LastCommand gives the spec's own name back for a command without subcommands.
        return name == spec.name() || name.equals(LastCommand.NONE) ? spec.stats()
                : subcommandStats.computeIfAbsent(name, k -> new CommandStats());
    }

    /** INFO latencystats: a line for each command with latencies counted since start or CONFIG RESETSTAT. */
    String latencyStats() {
        StringBuilder sb = new StringBuilder();
        double[] percentiles = ctx.latency.percentiles;
        forEachStats((name, stats) -> {
            long[] counts = stats.latency.snapshot();
            if (java.util.Arrays.stream(counts).anyMatch(n -> n != 0)) {
                sb.append("latency_percentiles_usec_").append(name).append(':')
                        .append(LatencyBuckets.percentiles(counts, percentiles)).append("\r\n");
            }
        });
        return sb.toString();
    }

    /** INFO commandstats: a line for each command counted since start or CONFIG RESETSTAT. */
    String commandStats() {
        StringBuilder sb = new StringBuilder();
        forEachStats((name, stats) -> sb.append(stats.line(name)).append("\r\n"));
        return sb.toString();
    }

    /** The counts of every command and subcommand counted since start or CONFIG RESETSTAT, by name. */
    void forEachStats(java.util.function.BiConsumer<String, CommandStats> action) {
        java.util.TreeMap<String, CommandStats> all = new java.util.TreeMap<>(subcommandStats);
        byName.forEach((name, spec) -> all.put(name, spec.stats()));
        all.forEach((name, stats) -> {
            if (stats.counted()) {
                action.accept(name, stats);
            }
        });
    }

    /**
     * Write commands that ran and answered no error of their own since start, CONFIG RESETSTAT or
     * not: what INFO's {@code rdb_changes_since_last_save} counts from. Redis counts the keys each
     * write changed; this counts the writes (an MSET of three keys is one, a SET that changed
     * nothing is one too), from the counts commandstats keeps anyway, so no request pays for it.
     */
    long writesRun() {
        CommandSpec[] writes = writeCommands;
        if (writes == null) {
            writeCommands = writes = byName.values().stream().filter(s -> s.writes())
                    .toArray(CommandSpec[]::new);
        }
        long n = writesBeforeReset;
        for (CommandSpec spec : writes) {
            n += spec.stats().calls.sum() - spec.stats().failed.sum();
        }
        return n;
    }

    /**
     * The commands flagged write, for {@link #writesRun}, found on its first call (INFO asks on
     * each call: looking through every command's flags was a tenth of INFO's time); null again
     * when a command is added.
     */
    private volatile CommandSpec[] writeCommands;

    /** @return {@link #writesRun} less the writes that changed nothing ({@link ServerContext#unchangedWrites}) */
    long changesRun() {
        return writesRun() - ctx.unchangedWrites.sum();
    }

    /** {@link #writesRun} at the last CONFIG RESETSTAT, which zeroes the counts it sums. */
    private volatile long writesBeforeReset;

    /** CONFIG RESETSTAT of every command's counts. */
    synchronized void resetCommandStats() {
        writesBeforeReset = writesRun();
        byName.values().forEach(spec -> spec.stats().reset());
        subcommandStats.values().forEach(CommandStats::reset);
    }

    /**
     * Answers a command that threw: a storage failure (disk full, damaged file) fails the command,
     * not the connection. The reply is {@link Errors#of}'s; damage and a full disk are said on
     * stderr too, as the operator, not only the client, has to act on them.
     */
    private void failed(Client c, RuntimeException e) {
        // The client's database: the one a command works on, but for MOVE's and SWAPDB's other
        if (e instanceof MapCorruptedException damage) {
            ctx.db(c).damaged(damage);
        } else if (e instanceof java.io.UncheckedIOException full) {
            ctx.db(c).noRoom(full);
        }
        c.reply.error(Errors.of(e));
    }
}
