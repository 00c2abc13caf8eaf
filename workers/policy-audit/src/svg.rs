//! Server-side SVG charts for self-contained reports: no scripts, no CDN.

const COLORS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn format_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e12 {
        format!("{v:.0}")
    } else if v.abs() < 1.0 {
        format!("{v:.4}")
    } else {
        format!("{v:.2}")
    }
}

/// Horizontal bars, one per label, scaled to `max` (or to the largest value).
pub fn bar_chart(title: &str, bars: &[(String, f64)], max: Option<f64>) -> String {
    let (width, row, left, top) = (640.0, 22.0, 170.0, 30.0);
    let height = top + row * bars.len().max(1) as f64 + 10.0;
    let max = max
        .unwrap_or_else(|| bars.iter().map(|b| b.1).fold(0.0, f64::max))
        .max(f64::MIN_POSITIVE);
    let span = width - left - 80.0;
    let mut body = String::new();
    for (i, (label, value)) in bars.iter().enumerate() {
        let y = top + i as f64 * row;
        let w = (value / max).clamp(0.0, 1.0) * span;
        body.push_str(&format!(
            "<text x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{label}</text>\
<rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"{h}\" fill=\"{color}\"/>\
<text x=\"{vx:.1}\" y=\"{ty}\">{value}</text>\n",
            lx = left - 6.0,
            ty = y + 14.0,
            label = escape(label),
            h = row - 6.0,
            color = COLORS[0],
            vx = left + w + 4.0,
            value = format_value(*value),
        ));
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>{t}</title>\
<text x=\"4\" y=\"18\" font-weight=\"bold\">{t}</text>\n{body}</svg>\n",
        t = escape(title),
    )
}

/// Lines over shared x labels; each series is (name, one value per x label).
pub fn line_chart(title: &str, x_labels: &[String], series: &[(String, Vec<f64>)]) -> String {
    let (width, height, pad, top) = (720.0, 300.0, 50.0, 40.0);
    let max = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let n = x_labels.len().max(2) as f64;
    let x = |i: usize| pad + i as f64 / (n - 1.0) * (width - 2.0 * pad);
    let y = |v: f64| height - pad - v / max * (height - pad - top);
    let mut body = format!(
        "<line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/>\
<line x1=\"{pad}\" y1=\"{top}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"black\"/>\
<text x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{m}</text>\n",
        b = height - pad,
        r = width - pad,
        lx = pad - 4.0,
        ty = top + 4.0,
        m = format_value(max),
    );
    for (k, (name, values)) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v)))
            .collect();
        if points.len() == 1 {
            body.push_str(&format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"/>\n",
                x(0),
                y(values[0])
            ));
        } else {
            body.push_str(&format!(
                "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n",
                points.join(" ")
            ));
        }
        body.push_str(&format!(
            "<text x=\"{lx:.1}\" y=\"{ly}\" fill=\"{color}\">{}</text>\n",
            escape(name),
            lx = pad + 10.0 + 110.0 * k as f64,
            ly = top - 8.0,
        ));
    }
    if let (Some(first), Some(last)) = (x_labels.first(), x_labels.last()) {
        body.push_str(&format!(
            "<text x=\"{pad}\" y=\"{ly}\">{}</text><text x=\"{r}\" y=\"{ly}\" text-anchor=\"end\">{}</text>\n",
            escape(first),
            escape(last),
            ly = height - pad + 18.0,
            r = width - pad,
        ));
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>{t}</title>\
<text x=\"4\" y=\"16\" font-weight=\"bold\">{t}</text>\n{body}</svg>\n",
        t = escape(title),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_maximum_and_escape_labels() {
        let svg = bar_chart(
            "Rate <per region>",
            &[("eu".into(), 1.0), ("us & co".into(), 0.5)],
            Some(1.0),
        );
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("Rate &lt;per region&gt;"));
        assert!(svg.contains("us &amp; co"));
        assert!(svg.contains("width=\"390.0\""), "full bar: {svg}");
        assert!(svg.contains("width=\"195.0\""), "half bar");
        assert!(!svg.contains("<script"));
    }

    #[test]
    fn lines_have_one_point_per_label() {
        let svg = line_chart(
            "Turns",
            &["10:00".into(), "10:01".into(), "10:02".into()],
            &[("turns".into(), vec![1.0, 3.0, 2.0])],
        );
        let points = svg.split("points=\"").nth(1).unwrap();
        let points = &points[..points.find('"').unwrap()];
        assert_eq!(points.split(' ').count(), 3);
        assert!(svg.contains("10:00") && svg.contains("10:02"));
    }

    #[test]
    fn a_single_point_is_drawn_as_a_dot_and_empty_input_is_still_svg() {
        let svg = line_chart("T", &["a".into()], &[("s".into(), vec![4.0])]);
        assert!(svg.contains("<circle"));
        assert!(bar_chart("empty", &[], None).contains("</svg>"));
        assert!(line_chart("empty", &[], &[]).contains("</svg>"));
    }
}
