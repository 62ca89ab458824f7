package allocorpool.measure;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Live objects after a full GC, the article's "object count" column: the HotSpot
 * DiagnosticCommand MBean's gcClassHistogram (jcmd GC.class_histogram, which collects
 * first) read at its "Total" line.
 */
public final class ClassHistogram {
    /** Live instances and bytes. */
    public final long objects;
    public final long bytes;

    private ClassHistogram(long objects, long bytes) {
        this.objects = objects;
        this.bytes = bytes;
    }

    public static ClassHistogram take() throws JMException {
        System.gc();
        ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(name, "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        return parse(text);
    }

    /** Reads {@code Total <instances> <bytes>} from a histogram's text. */
    static ClassHistogram parse(String text) {
        for (String line : text.split("\n")) {
            String[] words = line.trim().split("\\s+");
            if (words.length == 3 && words[0].equals("Total")) {
                return new ClassHistogram(Long.parseLong(words[1]), Long.parseLong(words[2]));
            }
        }
        throw new IllegalStateException("no Total line in the class histogram");
    }
}
