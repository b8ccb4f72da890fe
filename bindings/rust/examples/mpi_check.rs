// SPDX-License-Identifier: BSD-3-Clause
//! The MPI half of the crate's tests (`make check` runs it under mpirun
//! at 1-4 ranks): Mpi's lifetime, MpiComm over MPI_COMM_WORLD and from raw
//! and Fortran handles, every collective with real values, errors on
//! every rank, `Box<dyn Communicator>`. Exits non-zero on any failure.
use std::os::raw::c_void;
use std::process::exit;

use tcomm::{
    ffi, Collectives, Communicator, CommunicatorExt, Graph, Mpi, MpiComm, ReduceOp, Status, Tensor,
};

macro_rules! check {
    ($rank:expr, $cond:expr, $($fmt:tt)*) => {
        if !$cond {
            eprintln!("mpi_check rank {}: {}: {}", $rank, stringify!($cond), format!($($fmt)*));
            exit(1);
        }
    };
}

fn collectives(world: &dyn Communicator) -> tcomm::Result<()> {
    let info = world.info();
    let (r, n) = (info.rank, info.world_size);
    let g = Graph::host()?;
    let t = Tensor::from_f32_on(&g, &[r as f32 + 1.0, -(r as f32)], &[2])?;
    let sum = world.all_reduce(&t, ReduceOp::Sum)?;
    let total: f32 = (1..=n).map(|x| x as f32).sum();
    let neg: f32 = -((0..n).sum::<usize>() as f32);
    check!(
        r,
        sum.to_vec_f32()? == vec![total, neg],
        "{:?}",
        sum.to_vec_f32()
    );
    check!(
        r,
        sum.graph_id() == g.id(),
        "result on graph {}",
        sum.graph_id()
    );
    let max = world.all_reduce(&t, ReduceOp::Max)?.to_vec_f32()?;
    check!(r, max == vec![n as f32, 0.0], "{:?}", max);
    let avg = world.all_reduce(&Tensor::from_f64_on(&g, &[r as f64], &[1])?, ReduceOp::Avg)?;
    check!(
        r,
        avg.to_vec_f64()? == vec![(n - 1) as f64 / 2.0],
        "{:?}",
        avg.to_vec_f64()
    );

    // uneven all_gather along dim 0, then along dim 1
    let mine = Tensor::from_i64_on(&g, &vec![r as i64; r + 1], &[r + 1, 1])?;
    let all = world.all_gather(&mine, 0)?;
    let want: Vec<i64> = (0..n).flat_map(|q| vec![q as i64; q + 1]).collect();
    check!(
        r,
        all.shape() == vec![(n * (n + 1)) / 2, 1],
        "{:?}",
        all.shape()
    );
    check!(r, all.to_vec_i64()? == want, "{:?}", all.to_vec_i64());
    let cols = world.all_gather(&Tensor::from_i32_on(&g, &[r as i32, 7], &[2, 1])?, 1)?;
    let want: Vec<i32> = (0..n as i32).chain(std::iter::repeat(7).take(n)).collect();
    check!(r, cols.to_vec_i32()? == want, "{:?}", cols.to_vec_i32());

    let big = Tensor::from_f32_on(&g, &vec![1.0 + r as f32; 3 * n], &[n, 3])?;
    let chunk = world.reduce_scatter(&big, ReduceOp::Sum, 0)?;
    check!(r, chunk.shape() == vec![1, 3], "{:?}", chunk.shape());
    check!(
        r,
        chunk.to_vec_f32()? == vec![total; 3],
        "{:?}",
        chunk.to_vec_f32()
    );
    for root in 0..n {
        let b = world.broadcast(&Tensor::from_u8_on(&g, &[r as u8, 9], &[2])?, root)?;
        check!(
            r,
            b.to_vec_u8()? == vec![root as u8, 9],
            "root {}: {:?}",
            root,
            b.to_vec_u8()
        );
    }
    world.barrier()?;

    // the ranks disagree on the shape: every rank errs, nobody hangs
    let len = if r == 0 { 3 } else { 2 };
    let odd = Tensor::from_f32_on(&g, &vec![0.0; len], &[len])?;
    match world.all_reduce(&odd, ReduceOp::Sum) {
        Err(e) if n > 1 => check!(r, e.status() == Status::Mismatch, "{}", e),
        Err(e) => check!(r, false, "one rank cannot disagree: {}", e),
        Ok(_) => check!(r, n == 1, "a shape disagreement went through"),
    }
    // a local mistake on the last rank: its own status there, Mismatch elsewhere
    let dim = if r == n - 1 { 4 } else { 0 };
    let e = world.all_gather(&t, dim).err();
    let want = if r == n - 1 {
        Status::InvalidArg
    } else {
        Status::Mismatch
    };
    check!(r, e.as_ref().map(|e| e.status()) == Some(want), "{:?}", e);
    Ok(())
}

fn into_forms(world: &MpiComm) -> tcomm::Result<()> {
    let (r, n) = (world.info().rank, world.info().world_size);
    let g = Graph::host()?;
    let t = Tensor::from_f32_on(&g, &[r as f32; 4], &[4])?;
    let mut out = t.zeros_like()?;
    world.all_reduce_into(&t, ReduceOp::Sum, &mut out)?;
    let s = (0..n).sum::<usize>() as f32;
    check!(r, out.to_vec_f32()? == vec![s; 4], "{:?}", out.to_vec_f32());
    let mut b = t.const_f32_like(&[r as f32 * 2.0], &[1])?;
    world.broadcast_in_place(&mut b, n - 1)?;
    check!(
        r,
        b.to_vec_f32()? == vec![(n - 1) as f32 * 2.0],
        "{:?}",
        b.to_vec_f32()
    );
    let mut gathered = Tensor::zeros_on(&g, tcomm::DType::F32, &[4 * n])?;
    world.all_gather_into(&t, 0, &mut gathered)?;
    let want: Vec<f32> = (0..n).flat_map(|q| vec![q as f32; 4]).collect();
    check!(
        r,
        gathered.to_vec_f32()? == want,
        "{:?}",
        gathered.to_vec_f32()
    );
    Ok(())
}

/// all_to_all, the uneven forms and two requests waited out of order.
fn contract_02(world: &MpiComm) -> tcomm::Result<()> {
    let (r, n) = (world.info().rank, world.info().world_size);
    let g = Graph::host()?;
    // rank r sends j+1 copies of 100r+j to rank j
    let sends: Vec<usize> = (1..=n).collect();
    let x: Vec<i32> = (0..n)
        .flat_map(|j| vec![(100 * r + j) as i32; j + 1])
        .collect();
    let t = Tensor::from_i32_on(&g, &x, &[x.len()])?;
    let y = world.all_to_all_v(&t, 0, &sends, 0)?.to_vec_i32()?;
    let want: Vec<i32> = (0..n)
        .flat_map(|s| vec![(100 * s + r) as i32; r + 1])
        .collect();
    check!(r, y == want, "all_to_all_v {:?}", y);
    let sizes = vec![2; n];
    let ones = Tensor::from_f32_on(&g, &vec![1.0; 2 * n], &[2 * n])?;
    let rs = world.reduce_scatter_v(&ones, ReduceOp::Sum, 0, &sizes)?;
    check!(
        r,
        rs.to_vec_f32()? == vec![n as f32; 2],
        "{:?}",
        rs.to_vec_f32()
    );
    let even = world.all_to_all(&Tensor::from_f64_on(&g, &vec![r as f64; n], &[n])?, 0, 0)?;
    let ranks: Vec<f64> = (0..n).map(|s| s as f64).collect();
    check!(r, even.to_vec_f64()? == ranks, "{:?}", even.to_vec_f64());
    let mut sum = ones.zeros_like()?;
    let mut all = Tensor::zeros_on(&g, tcomm::DType::F32, &[2 * n * n])?;
    let a = world.all_reduce_start(&ones, ReduceOp::Sum, &mut sum)?;
    let b = world.all_gather_start(&ones, 0, &mut all)?;
    b.wait()?;
    a.wait()?;
    check!(
        r,
        sum.to_vec_f32()? == vec![n as f32; 2 * n],
        "{:?}",
        sum.to_vec_f32()
    );
    check!(
        r,
        all.to_vec_f32()? == vec![1.0; 2 * n * n],
        "{:?}",
        all.to_vec_f32()
    );
    Ok(())
}

fn run() -> tcomm::Result<()> {
    let mpi = Mpi::init()?;
    let again = Mpi::init()?; // safe to call twice
    check!("?", again.comm_handle_size() >= 4, "sizeof(MPI_Comm)");
    drop(again); // MPI stays up: `mpi` still holds it
    let world = MpiComm::world(&mpi)?;
    let r = world.info().rank;
    check!(r, world.backend() == "mpi", "backend {}", world.backend());
    let boxed: Box<dyn Communicator> = Box::new(world);
    collectives(&*boxed)?;
    drop(boxed);

    // the same world through a raw MPI_Comm and through a Fortran handle
    let mut raw = vec![0u8; mpi.comm_handle_size()];
    // SAFETY: raw has sizeof(MPI_Comm) bytes; MPI is initialized.
    unsafe { ffi::tcomm_rs_mpi_world_raw(raw.as_mut_ptr() as *mut c_void) };
    // SAFETY: raw holds MPI_COMM_WORLD, on every rank.
    let from_raw = unsafe { MpiComm::from_raw(&mpi, raw.as_ptr() as *const c_void)? };
    into_forms(&from_raw)?;
    contract_02(&from_raw)?;
    // SAFETY: the Fortran handle of MPI_COMM_WORLD, on every rank.
    let from_f = unsafe { MpiComm::from_fortran(&mpi, ffi::tcomm_rs_mpi_world_fint())? };
    check!(r, from_f.info() == from_raw.info(), "{:?}", from_f.info());
    collectives(&from_f)?;

    // MpiComm handles hold MPI up after the Mpi value itself is gone
    let keep = mpi.clone();
    drop(mpi);
    from_f.barrier()?;
    drop((from_raw, from_f));
    // SAFETY: a query only.
    check!(
        r,
        unsafe { ffi::tcomm_rs_mpi_active() } == 1,
        "MPI went down early"
    );
    drop(keep); // the last handle: MPI_Finalize, once
    check!(
        r,
        unsafe { ffi::tcomm_rs_mpi_active() } == 0,
        "MPI is still up"
    );
    match Mpi::init() {
        Err(e) => check!(
            r,
            e.status() == Status::Mpi && e.message().starts_with("Mpi::init:"),
            "{}",
            e
        ),
        Ok(_) => check!(r, false, "MPI started twice"),
    }
    if r == 0 {
        println!("mpi_check: ok");
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("mpi_check: {} ({:?})", e, e.status());
        exit(1);
    }
}
