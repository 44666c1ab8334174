# The tuner's Pareto front: the first objective against the second, every full feasible evaluation, the front
# as a line through its points, the baseline and the recommendation marked; an arrow points to the better corner.
# Set by rocesim before this template: png, dat, title, subtitle (says which direction is better), counts, xlabel,
# ylabel, base_label, better_x and better_y (+1: higher is better, -1: lower), logx/xlo/xhi, logy/ylo/yhi, and
# the block of each kind of point in dat (-1: none): i_all, i_front, i_base, i_best.
# Data: second objective, first objective, evaluation index.
if (!exists("outname")) outname = png
set terminal pngcairo size 1000,700 noenhanced font 'DejaVu Sans,10'
set output outname
set title sprintf("%s\n%s\n%s", title, subtitle, counts)
set xlabel xlabel
set ylabel ylabel
set grid
set key below vertical maxrows 2 box spacing 1.6 samplen 2.5
set bmargin 8  # room for the x label and the key under it: gnuplot reserves too little for big markers
if (logx) {
    # labelled at 1, 2 and 5 times each power of ten: gnuplot's own tics show only the powers
    set logscale x
    set xtics ()
    do for [d=floor(log10(xlo)):ceil(log10(xhi))] {
        do for [m in "1 2 5"] { v = real(m) * 10.0**d; set xtics add (sprintf("%g", v) v) }
    }
}
set xrange [xlo:xhi]
if (logy) {
    # labelled at 1, 2 and 5 times each power of ten: gnuplot's own tics show only the powers
    set logscale y
    set ytics ()
    do for [d=floor(log10(ylo)):ceil(log10(yhi))] {
        do for [m in "1 2 5"] { v = real(m) * 10.0**d; set ytics add (sprintf("%g", v) v) }
    }
}
set yrange [ylo:yhi]
# into the better corner, which the points reach only when one setting is best at both
ax = better_x > 0 ? 0.97 : 0.03
ay = better_y > 0 ? 0.96 : 0.04
set arrow 1 from graph ax - 0.05 * better_x, graph ay - 0.06 * better_y to graph ax, graph ay head filled lw 2 lc rgb '#2ca02c' front
set label 1 'better' at graph ax - 0.065 * better_x, graph ay - 0.085 * better_y center tc rgb '#2ca02c' front
# a kind of point with no block (-1) is left out by its empty loop; gnuplot parses its index all the same
ix(i) = i >= 0 ? i : 0
plot for [k=1:(i_all >= 0)] dat index ix(i_all) using 1:2 with points pt 7 ps 1.1 lc rgb '#1f77b4' title 'full feasible evaluation', \
     for [k=1:(i_front >= 0)] dat index ix(i_front) using 1:2 with linespoints lw 2 pt 7 ps 1.3 lc rgb '#2ca02c' title 'Pareto front', \
     for [k=1:(i_base >= 0)] dat index ix(i_base) using 1:2 with points pt 4 ps 2.8 lw 2.5 lc rgb '#ff7f0e' title base_label, \
     for [k=1:(i_best >= 0)] dat index ix(i_best) using 1:2 with points pt 6 ps 3.5 lw 2.5 lc rgb '#d62728' title 'recommendation'
