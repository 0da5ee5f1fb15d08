package dev.colossal.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.colossal.cli.Main;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Compiles every Java example of the README and of {@code docs/} against this tree, so an example
 * a user copies cannot drift from the API. It lives in the bench module because that is the one
 * whose classpath holds everything the examples name: the core, the server's client, and the peers
 * the migration guide starts from (Chronicle Map, MapDB, lmdbjava).
 *
 * <p>An example that is a whole program ({@code class ... main}) compiles as it stands. A fragment
 * is compiled as the body of a method, after the standard imports below; the records, interfaces
 * and static members it starts with become members of the class around it. What a fragment uses
 * without declaring it is declared in an HTML comment just above its fence, which renders as
 * nothing:
 *
 * <pre>
 * &lt;!-- compile: import org.mapdb.DB; ColossalMap&lt;String, User&gt; users; void handle(long x) {} --&gt;
 * </pre>
 *
 * Each {@code ;}- or {@code }}-ended item there is an import or a member of the class. Only
 * compiled, never run: the examples write files in the working directory and some reserve tens of
 * GiB of sparse file.
 */
class DocExamplesTest {

    private static final Path ROOT = root();

    private static final List<String> IMPORTS = List.of(
            "java.io.*", "java.lang.foreign.*", "java.nio.*", "java.nio.charset.*", "java.nio.file.*", "java.time.*",
            "java.util.*", "java.util.concurrent.*", "java.util.function.*", "java.util.stream.*",
            "dev.colossal.array.*", "dev.colossal.client.*", "dev.colossal.codec.*", "dev.colossal.ipc.*",
            "dev.colossal.map.*", "dev.colossal.memory.*", "dev.colossal.struct.*", "dev.colossal.swap.*");

    private static final Pattern FENCE = Pattern.compile("(?:<!-- compile:(.*?)-->\\s*\\n)?```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern PROGRAM = Pattern.compile("^public (?:final )?class (\\w+)", Pattern.MULTILINE);
    /** A declaration a fragment opens with that belongs to the class, not the method body. */
    private static final Pattern MEMBER = Pattern.compile("^(?:public |static |final )*(?:record|interface|enum|class) \\w+|^(?:public )?static ");

    record Example(Path doc, int line, String context, String code) {
        @Override
        public String toString() {
            return ROOT.relativize(doc) + ":" + line;
        }
    }

    @TestFactory
    Stream<DynamicTest> everyJavaExampleCompiles(@TempDir Path out) throws IOException {
        List<Example> examples = examples();
        return examples.stream().map(e -> DynamicTest.dynamicTest(e.toString(), () -> compile(e, out.resolve("e" + e.line()))));
    }

    @Test
    void theDocsHoldTheExamplesThisTestIsMeantToCover() throws IOException {
        // A fence this parser stops seeing (```Java, an indented one) would silently leave
        // examples untested; the counts only go up as examples are added.
        List<Example> examples = examples();
        long readme = examples.stream().filter(e -> e.doc().getFileName().toString().equals("README.md") && e.doc().getParent().equals(ROOT)).count();
        assertTrue(readme >= 15, "README examples found: " + readme);
        assertTrue(examples.size() >= 25, "examples found: " + examples.size());
    }

    @Test
    void aFragmentThatNoLongerMatchesTheApiFails(@TempDir Path out) {
        Example stale = new Example(ROOT.resolve("README.md"), 1, null, "ColossalMap.openSomehow(Path.of(\"x\"));\n");
        AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> compile(stale, out));
        assertTrue(e.getMessage().contains("openSomehow"), e.getMessage());
    }

    /**
     * Every {@code ./colossal COMMAND --flag} the current docs show names a command and flags that
     * exist: the picocli commands' own options, the launcher's {@code test}, {@code build},
     * {@code install} and {@code help}, and {@code bench} with a suite this build has. (The figures' histories under
     * {@code docs/*-figures.md} keep the commands as they were run, so they are not checked.)
     */
    @Test
    void everyCommandTheDocsShowExistsWithItsFlags() throws IOException {
        CommandLine cli = new CommandLine(new Main());
        Set<String> suites = new TreeSet<>();
        BenchMain.SUITES.forEach(s -> suites.add(s.name()));
        Pattern command = Pattern.compile("\\./colossal ([a-z][a-z-]*)([^`|#\\n]*)");
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Path doc : List.of(ROOT.resolve("README.md"), ROOT.resolve("docs/README.md"), ROOT.resolve("docs/migrating.md"))) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = command.matcher(lines.get(i));
                while (m.find()) {
                    checked++;
                    String where = ROOT.relativize(doc) + ":" + (i + 1) + ": ./colossal " + m.group(1) + m.group(2);
                    String name = m.group(1);
                    List<String> words = List.of(m.group(2).trim().split("[\\s\\[\\]=]+"));
                    List<String> flags = words.stream().filter(w -> w.startsWith("--")).toList();
                    if (name.equals("bench")) {
                        String suite = words.getFirst();
                        if (!suite.isEmpty() && !suite.equals("SUITE") && !suites.contains(suite)) {
                            wrong.add(where + "  (no suite '" + suite + "'; suites: " + suites + ")");
                        }
                        flags.stream().filter(f -> !f.equals("--quick")).forEach(f -> wrong.add(where + "  (bench takes --quick only, not " + f + ")"));
                    } else if (!List.of("test", "build", "install", "help").contains(name)) {
                        CommandLine sub = cli.getSubcommands().get(name);
                        if (sub == null) {
                            wrong.add(where + "  (no command '" + name + "'; commands: " + cli.getSubcommands().keySet() + ")");
                            continue;
                        }
                        for (String f : flags) {
                            if (sub.getCommandSpec().findOption(f) == null) {
                                wrong.add(where + "  (" + name + " has no option " + f + ")");
                            }
                        }
                    }
                }
            }
        }
        assertTrue(checked >= 40, "commands found in the docs: " + checked);
        assertTrue(wrong.isEmpty(), "commands in the docs that this build does not have:\n" + String.join("\n", wrong));
    }

    private static List<Example> examples() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<Example> examples = new ArrayList<>();
        for (Path doc : docs) {
            String text = Files.readString(doc);
            Matcher m = FENCE.matcher(text);
            while (m.find()) {
                int line = (int) text.substring(0, m.start(2)).lines().count();
                examples.add(new Example(doc, line, m.group(1), m.group(2)));
            }
        }
        return examples;
    }

    private static void compile(Example e, Path out) throws IOException {
        Files.createDirectories(out);
        String name;
        String source;
        Matcher program = PROGRAM.matcher(e.code());
        if (program.find()) {
            name = program.group(1);
            source = e.code();
        } else {
            name = "Example";
            source = wrap(e);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        SimpleJavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), SimpleJavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        boolean ok = javac.getTask(errors, null, null,
                List.of("--release", "25", "-proc:none", "-d", out.toString(), "-cp", classPath()), null, List.of(file)).call();
        if (!ok) {
            fail("the example at " + e + " does not compile against this tree; fix the example (or declare what it uses in a"
                    + " <!-- compile: ... --> comment above its fence):\n" + errors + "\nsource compiled:\n" + numbered(source));
        }
    }

    /** A fragment as the body of a method, its leading declarations and the declared context as members. */
    private static String wrap(Example e) {
        StringBuilder imports = new StringBuilder();
        IMPORTS.forEach(i -> imports.append("import ").append(i).append(";\n"));
        StringBuilder members = new StringBuilder();
        if (e.context() != null) {
            for (String item : items(e.context())) {
                (item.startsWith("import ") ? imports : members).append(item).append('\n');
            }
        }
        StringBuilder body = new StringBuilder();
        int depth = 0;
        boolean inMember = false;
        for (String line : e.code().split("\n", -1)) {
            if (depth == 0 && !inMember && MEMBER.matcher(line).find()) {
                inMember = true;
            }
            if (inMember) {
                members.append(line).append('\n');
                String code = line.replaceFirst("\\s*//.*", "");
                depth += count(code, '{') - count(code, '}');
                if (depth == 0 && (code.endsWith("}") || code.endsWith(";"))) {
                    inMember = false;
                }
            } else {
                body.append(line).append('\n');
            }
        }
        return imports + "\npublic class Example {\n" + members + "\nvoid example() throws Exception {\n" + body + "}\n}\n";
    }

    /** The items of a compile comment: each ends with a {@code ;} or a {@code }} at brace depth 0. */
    private static List<String> items(String context) {
        List<String> items = new ArrayList<>();
        StringBuilder item = new StringBuilder();
        int depth = 0;
        for (char c : context.toCharArray()) {
            item.append(c);
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            if (depth == 0 && (c == ';' || c == '}')) {
                items.add(item.toString().strip());
                item.setLength(0);
            }
        }
        if (!item.toString().isBlank()) {
            throw new IllegalArgumentException("compile comment item without ';' or '}' at its end: " + item);
        }
        return items;
    }

    private static int count(String s, char c) {
        return (int) s.chars().filter(x -> x == c).count();
    }

    private static String numbered(String source) {
        StringBuilder sb = new StringBuilder();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            sb.append(String.format("%4d  %s%n", i + 1, lines[i]));
        }
        return sb.toString();
    }

    private static String classPath() {
        // Surefire puts the test classpath in a manifest-only jar; it names the whole path here.
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    private static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("colossal-core"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
