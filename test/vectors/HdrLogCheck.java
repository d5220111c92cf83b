// test/vectors/HdrLogCheck.java -- reads an --hdr-log file with HdrHistogram's own
// HistogramLogReader (Debian's libhdrhistogram-java) and prints, as one JSON
// object, what test/e2e/e2e_hdrlog.sh compares with shb's report.
//
//   javac -cp /usr/share/java/hdrhistogram.jar -d DIR test/vectors/HdrLogCheck.java
//   java -cp DIR:/usr/share/java/hdrhistogram.jar HdrLogCheck LOG TAG MIN_NS MAX_NS
//
// For the intervals tagged TAG, added into one histogram: how many there
// are, their start offsets from the log's StartTime and lengths (ms), the
// total count, getValueAtPercentile(50, 90, 99) and getMinValue() /
// getMaxValue() (ns); and, for shb's exact MIN_NS and MAX_NS, the
// lowestEquivalentValue / highestEquivalentValue the histogram gives them.
// Every tag seen. And each line's Interval_Max column checked against what
// HistogramLogWriter would print for that histogram (getMaxValueAsDouble()
// over its default maxValueUnitRatio 1e6, "%.3f"): the mismatches counted.
import java.io.BufferedReader;
import java.io.FileReader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HdrLogCheck {
    public static void main(String[] args) throws Exception {
        String path = args[0], tag = args[1];
        long shbMin = Long.parseLong(args[2]), shbMax = Long.parseLong(args[3]);

        HistogramLogReader reader = new HistogramLogReader(path);
        Histogram total = null;
        List<Long> starts = new ArrayList<>(), lengths = new ArrayList<>();
        TreeSet<String> tags = new TreeSet<>();
        EncodableHistogram e;
        while ((e = reader.nextIntervalHistogram()) != null) {
            tags.add(e.getTag() == null ? "" : e.getTag());
            if (!tag.equals(e.getTag()))
                continue;
            Histogram h = (Histogram) e;
            long startMs = Math.round(reader.getStartTimeSec() * 1000.0);
            starts.add(h.getStartTimeStamp() - startMs);
            lengths.add(h.getEndTimeStamp() - h.getStartTimeStamp());
            if (total == null)
                total = h.copy();
            else
                total.add(h);
        }
        reader.close();

        int maxMismatches = 0, lines = 0;
        try (BufferedReader in = new BufferedReader(new FileReader(path))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("Tag="))
                    continue;
                String[] f = line.split(",");
                Histogram h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(f[4])), 0);
                String want = String.format(Locale.US, "%.3f", h.getMaxValueAsDouble() / 1000000.0);
                if (!want.equals(f[3]))
                    maxMismatches++;
                lines++;
            }
        }

        StringBuilder o = new StringBuilder("{");
        o.append("\"intervals\": ").append(starts.size());
        o.append(", \"startsMs\": ").append(starts);
        o.append(", \"lengthsMs\": ").append(lengths);
        o.append(", \"tags\": [");
        String sep = "";
        for (String t : tags) {
            o.append(sep).append('"').append(t).append('"');
            sep = ", ";
        }
        o.append("], \"lines\": ").append(lines);
        o.append(", \"maxColumnMismatches\": ").append(maxMismatches);
        if (total != null) {
            o.append(", \"count\": ").append(total.getTotalCount());
            o.append(", \"p50\": ").append(total.getValueAtPercentile(50));
            o.append(", \"p90\": ").append(total.getValueAtPercentile(90));
            o.append(", \"p99\": ").append(total.getValueAtPercentile(99));
            o.append(", \"min\": ").append(total.getMinValue());
            o.append(", \"max\": ").append(total.getMaxValue());
            o.append(", \"lowestEquivalentOfMin\": ").append(total.lowestEquivalentValue(shbMin));
            o.append(", \"highestEquivalentOfMax\": ").append(total.highestEquivalentValue(shbMax));
        }
        o.append("}");
        System.out.println(o);
    }
}
