# InfiniBand credit stalls: one row per sender (port, VL) that ran out of credit; a bar from the moment it could
# not send a largest frame to the flow-control packet that gave it the credit again.
# Set by rocesim before this template: name, xunit, xend, nrows, pname[1..nrows],
# the y tic labels, subtitle.  Data: credits.dat (start, end, row).
if (!exists("outname")) outname = 'credits.png'
set terminal pngcairo size 1100,(nrows > 12 ? 360 + 22 * nrows : 620) noenhanced font 'DejaVu Sans,10'
set output outname
set title sprintf("Credit stalls: %s\n%s", name, subtitle)
set xlabel sprintf('simulated time (%s)', xunit)
set ylabel 'sender waiting for credit (node:port, VL)'
set grid xtics
set key outside top center horizontal box width 1
set xrange [0:xend > 0 ? xend : 1]
if (nrows == 0) {
    set yrange [0:1]
    unset ytics
    set label 1 'no credit stall in this run' at graph 0.5, graph 0.5 center font ',16'
    unset key
    plot NaN notitle
} else {
    set yrange [-0.6:nrows - 0.4]
    bar = nrows > 20 ? 4 : 10
    plot 'credits.dat' using 1:3:($2-$1):(0) with vectors nohead lw bar lc rgb '#2c6fbb' title 'stalled for credit (stall to resume)'
}
