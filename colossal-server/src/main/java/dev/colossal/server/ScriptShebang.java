package dev.colossal.server;

import java.util.Set;

/**
 * The first line of a Redis 7.0 script that begins {@code #!}: the engine ({@code lua}, the only
 * one) and the flags that change how the script may run, e.g. {@code #!lua flags=no-writes}. A
 * script without such a line runs as scripts ran before 7.0.
 *
 * <p>Of the flags, only {@code no-writes} changes anything here: the script runs read-only, as
 * under EVAL_RO; a script that declares a shebang without it is one that may write, which
 * EVAL_RO refuses. {@code allow-oom}, {@code allow-stale}, {@code no-cluster} and
 * {@code allow-cross-slot-keys} are taken and do nothing, as this server has no replicas or
 * cluster, and its memory bound is checked command by command inside a script either way.
 *
 * @param declared whether the script has a shebang line
 * @param noWrites whether it declared {@code no-writes}
 * @param allowOom whether it declared {@code allow-oom}: it may run, and write, past {@code maxmemory}
 */
record ScriptShebang(boolean declared, boolean noWrites, boolean allowOom) {

    /** A script without a shebang line. */
    static final ScriptShebang NONE = new ScriptShebang(false, false, false);

    private static final Set<String> FLAGS = Set.of("no-writes", "allow-oom", "allow-stale", "no-cluster",
            "allow-cross-slot-keys");
    private static final String FLAGS_OPTION = "flags=";

    /**
     * @return what the script's first line declares, {@link #NONE} if it does not begin {@code #!}
     * @throws ReplyException Redis's error for a shebang it would refuse (the line split as Redis
     *     splits it, quotes and all; options and flags are case-sensitive; {@code flags=} may come
     *     more than once, and they add up)
     */
    static ScriptShebang parse(byte[] body) {
        if (body.length < 2 || body[0] != '#' || body[1] != '!') {
            return NONE;
        }
        int end = 0;
        while (end < body.length && body[end] != '\n') {
            end++;
        }
        if (end == body.length) {
            throw new ReplyException("ERR Invalid script shebang");
        }
        byte[][] words;
        try {
            words = RequestParser.splitArgs(body, 0, end);
        } catch (ProtocolException unbalanced) {
            throw new ReplyException("ERR Invalid engine in script shebang");
        }
        if (!Errors.text(words[0]).equals("#!lua")) {
            throw new ReplyException("ERR Unexpected engine in script shebang: " + Errors.text(words[0]));
        }
        boolean noWrites = false;
        boolean allowOom = false;
        for (int i = 1; i < words.length; i++) {
            String option = Errors.text(words[i]);
            if (!option.startsWith(FLAGS_OPTION)) {
                throw new ReplyException("ERR Unknown lua shebang option: " + option);
            }
            String flags = option.substring(FLAGS_OPTION.length());
            if (flags.isEmpty()) {
                continue;
            }
            for (String flag : flags.split(",", -1)) {
                if (!FLAGS.contains(flag)) {
                    throw new ReplyException("ERR Unexpected flag in script shebang: " + flag);
                }
                noWrites |= flag.equals("no-writes");
                allowOom |= flag.equals("allow-oom");
            }
        }
        return new ScriptShebang(true, noWrites, allowOom);
    }
}
