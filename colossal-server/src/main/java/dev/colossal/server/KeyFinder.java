package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Finds the keys of a request as Redis 7.0 does for COMMAND GETKEYS and for ACL: by the command's
 * key specs when they are complete, else (a spec that cannot be followed, or flags that depend on
 * the arguments) by the command's own procedure ({@link KeyProcedures}).
 */
final class KeyFinder {

    /** A key found: its argument's index (0 is the command's name) and its key-spec flags. */
    record Found(int position, int flags) {
    }

    private KeyFinder() {
    }

    /** @return whether {@code e} names keys at all, as Redis decides before looking at arguments */
    static boolean hasKeys(CommandFacts.Entry e) {
        return KeyProcedures.of(e.name()) != null || e.keySpecs().stream().anyMatch(s -> !s.has(KeySpec.NOT_KEY));
    }

    /**
     * @param args the request, name first; its arity already checked
     * @return the keys, in the order Redis lists them
     */
    static List<Found> keys(CommandFacts.Entry e, byte[][] args) {
        boolean real = e.keySpecs().stream().anyMatch(s -> !s.has(KeySpec.NOT_KEY));
        boolean variable = e.keySpecs().stream().anyMatch(s -> s.has(KeySpec.VARIABLE_FLAGS));
        if (real && !variable) {
            List<Found> found = bySpecs(e.keySpecs(), args);
            if (found != null) {
                return found;
            }
        }
        KeyProcedures.Procedure p = KeyProcedures.of(e.name());
        return p == null ? List.of() : p.keys(args);
    }

    /** @return the keys the specs find, or null if one cannot be followed on these arguments */
    private static List<Found> bySpecs(List<KeySpec> specs, byte[][] args) {
        int argc = args.length;
        List<Found> out = new ArrayList<>();
        for (KeySpec s : specs) {
            if (s.has(KeySpec.NOT_KEY)) {
                continue;
            }
            if (s.has(KeySpec.INCOMPLETE)) {
                return null; // it may miss keys: the command's procedure finds them all
            }
            int first;
            switch (s.begin()) {
                case INDEX -> first = s.index();
                case KEYWORD -> {
                    first = keyword(s, args);
                    if (first == 0) {
                        continue; // an absent keyword names no keys, which is no error
                    }
                }
                default -> {
                    return null;
                }
            }
            int last;
            int step;
            switch (s.find()) {
                case RANGE -> {
                    step = s.b();
                    last = s.a() >= 0 ? first + s.a() : s.c() == 0 ? argc + s.a() : first + (argc - first) / s.c() + s.a();
                }
                case KEYNUM -> {
                    step = s.c();
                    int at = first + s.a();
                    if (at >= argc) {
                        return null;
                    }
                    OptionalLong n = Args.toLong(args[at]);
                    if (n.isEmpty() || n.getAsLong() < 0) {
                        return null;
                    }
                    first += s.b();
                    last = first + (int) n.getAsLong() - 1; // cut to an int as Redis's is
                }
                default -> {
                    return null;
                }
            }
            if (last >= argc || last < first || first >= argc) {
                return null;
            }
            for (int i = first; i <= last; i += step) {
                out.add(new Found(i, s.flags()));
            }
        }
        return out;
    }

    /**
     * @return the argument after the spec's keyword, 0 if it is not there. The search never looks
     *         at the far end's argument (the last searching forwards, the first backwards): a
     *         keyword there could have no key after it.
     */
    private static int keyword(KeySpec s, byte[][] args) {
        int argc = args.length;
        int from = s.index() > 0 ? s.index() : argc + s.index();
        int end = s.index() > 0 ? argc - 1 : 1;
        int step = from <= end ? 1 : -1;
        for (int i = from; i != end; i += step) {
            if (i >= argc || i < 1) {
                break;
            }
            if (Args.is(args[i], s.keyword())) {
                return i + 1;
            }
        }
        return 0;
    }
}
