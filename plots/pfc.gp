# PFC pause timeline: one row per (port, priority) that sent PAUSE frames; a bar
# from the PAUSE that paused its peer to the RESUME that released it (refreshes
# in between extend the bar).  Times are when the frames were sent.
# Set by rocesim before this template: name, xunit, xend, nrows, pname[1..nrows],
# the y tic labels, subtitle.  Data: pfc.dat (start, end, row).
if (!exists("outname")) outname = 'pfc.png'
set terminal pngcairo size 1100,(nrows > 12 ? 360 + 22 * nrows : 620) noenhanced font 'DejaVu Sans,10'
set output outname
set title sprintf("PFC pauses: %s\n%s", name, subtitle)
set xlabel sprintf('simulated time (%s)', xunit)
set ylabel 'sender of the PAUSE (node:port, priority)'
set grid xtics
set key outside top center horizontal box width 1
set xrange [0:xend > 0 ? xend : 1]
if (nrows == 0) {
    set yrange [0:1]
    unset ytics
    set label 1 'no PAUSE frames in this run' at graph 0.5, graph 0.5 center font ',16'
    unset key
    plot NaN notitle
} else {
    set yrange [-0.6:nrows - 0.4]
    bar = nrows > 20 ? 4 : 10
    plot 'pfc.dat' using 1:3:($2-$1):(0) with vectors nohead lw bar lc rgb '#c0392b' title 'peer paused (PAUSE to RESUME)'
}
